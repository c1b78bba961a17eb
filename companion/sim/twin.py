"""The digital twin: `companion serve`'s own table on virtual devices, with scripted players and hands.

The table is the product's one assembly (table/live.py's LiveTable, with the web's table from web/serve.py), opened
on virtual devices (table_setup.py `make_twin`): each grid a process speaking the firmware's protocol over a pty (the
virtual grid, or the real firmware in simavr), opened as any port is; the camera a frame source drawing what the
hands set out (twin_frames.py). The table's own
threads read the grids and the camera and judge the board, as `companion serve`'s do. The players move pieces by
closing and opening switches under them and setting them out under the camera; now and then they slide a piece
across other sites, lift one and put it back, or make an illegal move and then put it right, as people do. What
never touches the board (a card drawn, a station built) they declare on a phone (phones.py: the web table's own
calls, or HTTP), then make the board match. A new game started on a phone is laid out on the twin's grid (its board
wired in site order, as the table's calibration of that board records it) and set out as the page's guide asks.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.boards import Board
from companion.rules import Action, IllegalAction
from companion.rules.engine import Layout
from companion.sim.phones import Phones, TablePhones
from companion.sim.players import scripted_action
from companion.sim.simavr_grid import GridProcess
from companion.sim.wire import FaultyWire
from companion.table.footprint import footprint
from companion.table.loop import Look, TableLoop
from companion.table.referee import Referee, Ruling
from companion.table.setup_guide import placement_order
from companion.table.steps import NotNow
from companion.web.table import NewGame

if TYPE_CHECKING:
    from companion.sensing.reed import ReedLink
    from companion.sim.table_grids import BoardOnGrid
    from companion.sim.twin_frames import CameraModel, RenderedFrames
    from companion.table.live import LiveTable
    from companion.table.observe import Observer
    from companion.table.senses import Senses
    from companion.table.session import Session
    from companion.web.table import Table

HOLD_WRONG = 4  # paces an illegal move stays on the board before its player puts it right

Switch = tuple[int, int]
Key = tuple[int, ...]  # a switch of the game board's grid (row, col), or of a board beside it (its place, row, col)
Lay = Callable[["Session"], tuple[dict[str, Switch], "CameraModel | None"]]  # a new game's board: its wiring, camera


def switch_map(board: Board, rows: int, cols: int) -> dict[str, Switch]:
    """A grid profile for a board wired in site order, row by row (what `companion calibrate grid` records for a
    grid built that way)."""
    if len(board.sites) > rows * cols:
        raise ValueError(f"{len(board.sites)} sites do not fit a {rows} x {cols} grid")
    return {site.id: (i // cols, i % cols) for i, site in enumerate(board.sites)}


@dataclass
class TwinStats:
    board_moves: int = 0
    phone_inputs: int = 0
    taps: int = 0  # board moves the sensors could not settle, decided on a phone
    messy: int = 0  # slides across other sites and pieces lifted and put back
    illegal_tried: int = 0
    illegal_caught: int = 0
    wrong_accepted: int = 0  # a board the referee accepted that was not the move the player made: must stay 0
    wrong: list[str] = field(default_factory=list)  # each of them in words: what the hands did, what was booked


@dataclass
class Ports:
    """The twin's grid processes and where the table opens them: each grid's port is a link in the twin's folder,
    made when the grid starts (its pty's name is known then), or a cable that can be pulled (`wire`)."""

    grid: GridProcess
    port: Path
    beside: Sequence[BoardOnGrid] = ()
    beside_ports: Sequence[Path] = ()
    wire: bool = False


class Twin:
    def __init__(
        self,
        live: LiveTable,
        web: Table,
        ports: Ports,
        sites: Mapping[str, Switch],
        *,
        seed: int = 1,
        mess: float = 0.2,
        illegal: float = 0.05,
        pace: float = 0.0,
        frames: RenderedFrames | None = None,
        camera: CameraModel | None = None,
        lay: Lay | None = None,
        illegal_after: int | None = None,
        own_clock: bool = False,
    ) -> None:
        """`live` and `web`: the table (make_twin builds it); `ports`: its grids; `sites`: the game board's site ->
        the switch under it; `frames`: the camera's frame source, drawn by `camera` (None: no camera); `lay`: a new
        game's board laid on the grid (its wiring, and the camera model over it); `illegal_after`: once the game has
        this many actions, a player makes an illegal move at the first chance and puts it right (the demo shows one
        early in every game, whatever the dice say); `own_clock`: the table's threads do not run (its links do): a
        driver on a clock of its own feeds the observer and asks the loop to look (hand_clock.py)."""
        self.live, self.web, self.ports = live, web, ports
        self.own_clock = own_clock
        self.illegal_after = illegal_after
        self.stopping = threading.Event()  # set when the demo stops: a held illegal move is not waited out
        self.grid = ports.grid
        self.beside = list(ports.beside)
        self.sites: dict[str, Key] = {
            **sites,
            **{
                on.prefix + site: (index, *switch)
                for index, on in enumerate(self.beside)
                for site, switch in on.sites.items()
            },
        }
        self.rng = random.Random(seed)
        self.mess, self.illegal, self.pace = mess, illegal, pace
        self.frames = frames
        self.camera = camera
        self._lay = lay
        self.phones: Phones = TablePhones(web)
        self.stats = TwinStats()
        self.wire: FaultyWire | None = None
        self.timeout = 10.0
        self._magnet: str | None = None
        self._new: Session | None = None  # a game a phone started, still to be set out
        self._since: float | None = None  # show() waits for a settled look from this moment
        self._looks: list[Look] = []  # the looks at a settled board told since then
        # How many frames the table has read through (None: no camera).
        self._frames_read: Callable[[], int] | None = None if frames is None else (lambda: frames.read_through)
        self._looked = threading.Condition()
        self._listen(web.loop)
        web.games.subscribe(self._taken_up)

    # The table, as it stands now (a phone may start another game).
    @property
    def session(self) -> Session:
        return self.web.session

    @property
    def loop(self) -> TableLoop:
        loop = self.web.loop
        assert loop is not None, "the twin's table has a grid or a camera: it has a loop"
        return loop

    @property
    def observer(self) -> Observer:
        assert self.live.observer is not None
        return self.live.observer

    @property
    def senses(self) -> Senses:
        return self.live.senses

    @property
    def link(self) -> ReedLink | None:
        return self.live.link

    @property
    def beside_links(self) -> list[ReedLink | None]:
        return self.live.beside_links

    @property
    def sensed(self) -> frozenset[str]:
        """Every site a sense reads: the grids' and the camera's (a planet map with no grid under it, camera alone)."""
        return frozenset(self.sites) | (self.camera.sites if self.camera is not None else frozenset())

    def links(self) -> list[ReedLink]:
        """Every grid's link: the game board's first, then the boards' beside it in their order."""
        return [link for link in (self.live.link, *self.live.beside_links) if link is not None]

    def occupancy(self) -> frozenset[Key] | None:
        """Every grid's closed switches, keyed as the observer's switch map; None while a link is out of step."""
        return self.live.switches()

    # Starting and stopping.
    def __enter__(self) -> Twin:
        try:
            self.grid.start()
            self.grid.go()
            if self.ports.wire:
                self.wire = FaultyWire(self.grid.port, self.ports.port).start()
            else:
                _point(self.ports.port, self.grid.port)
            for on_grid, port in zip(self.beside, self.ports.beside_ports, strict=True):
                on_grid.grid.start()
                on_grid.grid.go()
                _point(port, on_grid.grid.port)
            self.live.start(wait=10.0, threads=not self.own_clock)
            if not all(link.synced for link in self.links()):
                raise RuntimeError("a grid did not answer the handshake")
            layout = self.session.game.layout(self.session.state)
            if self.own_clock:
                self.observer.reed(self.set_board(layout), time.monotonic())
            else:
                self.show(layout)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        if self.frames is not None:
            self.frames.close()
        self.live.stop()
        if self.wire is not None:
            self.wire.stop()
        self.grid.stop()
        for on_grid in self.beside:
            on_grid.grid.stop()

    # What the table tells: its looks at the board, and the games the phones start.
    def _listen(self, loop: TableLoop | None) -> None:
        if loop is not None:
            loop.looks.subscribe(self._look)

    def _look(self, look: Look) -> None:
        with self._looked:
            # (a look begun before the twin began waiting may still be judging its board: its ruling counts too)
            if self._since is not None and (look.settled or look.ruling is not None):
                self._looks.append(look)
                self._looked.notify_all()

    def _taken_up(self, new: NewGame) -> None:
        """A phone started a game: its board is laid over the grid (and under the camera) at once; the players set
        its pieces out at their next step, as the page's guide asks."""
        self._listen(new.loop)
        if self._lay is not None:
            own, camera = self._lay(new.session)
            beside = {site: key for site, key in self.sites.items() if len(key) == 3}
            self.sites = {**own, **beside}
            self.camera = camera
            if self.frames is not None:
                self.frames.use(camera)
        self._new = new.session

    # The physical table.
    def _closed(self, layout: Layout) -> frozenset[Key]:
        return frozenset(self.sites[site] for site, pieces in layout.items() if pieces and site in self.sites)

    def _set_switches(self, closed: frozenset[Key]) -> None:
        self.grid.set_all({(key[0], key[1]) for key in closed if len(key) == 2})
        for index, on_grid in enumerate(self.beside):
            on_grid.grid.set_all({(key[1], key[2]) for key in closed if len(key) == 3 and key[0] == index})

    def _press(self, key: Key, closed: bool) -> None:
        """One switch of one grid, closed or opened (a calibration magnet)."""
        grid = self.grid if len(key) == 2 else self.beside[key[0]].grid
        row, col = key[-2:]
        (grid.close_switch if closed else grid.open_switch)(row, col)

    def show(self, layout: Layout) -> Ruling | None:
        """Set the board to `layout` and wait until the table has looked at it settled and its camera has read it:
        the referee's last ruling on it, or None (the very board it judged before, or the referee is held back for a
        guide)."""
        wanted = self._closed(layout)
        deadline = time.monotonic() + self.timeout
        with self._looked:  # (the table may judge the board before the twin sees the camera come back for more)
            self._since, self._looks = float("inf"), []
        self._set_switches(wanted)
        version = self.frames.show(layout) if self.frames is not None else None
        # The table's links report the board as set, and the camera's frame of it has been read through.
        while self.occupancy() != wanted or (version is not None and self.frames is not None
                                              and self.frames.taken < version):  # fmt: skip
            self._before(deadline)
            time.sleep(0.005)
        read = self._frames_read or (lambda: 0)
        ruled: object = object()  # (no ruling seen yet: the first look starts the count of frames)
        quiet_from = read()
        while True:
            seen = read()
            with self._looked:
                since = self._since = time.monotonic()
                while not any(look.settled and look.at >= since for look in self._looks):
                    self._before(deadline)
                    self._looked.wait(0.05)
                # The newest ruling that says the board changed ("unchanged" follows every frame read of a board
                # the camera alone watches, a planet map on no grid: it is no change).
                judged = next(
                    (
                        look.ruling
                        for look in reversed(self._looks)
                        if look.ruling is not None and look.ruling.verdict != "unchanged"
                    ),
                    None,
                )
            if read() != seen:
                continue  # a frame came in meanwhile: the table looks again after it
            # The camera goes on reading a settled change until it has read every site of it (a crop it could not
            # vouch for is read again): done once the table wants no more frames, or two more brought no new ruling.
            if self._frames_read is None or not self.live.wants_frame():
                break
            if judged != ruled:
                ruled, quiet_from = judged, read()
            elif read() >= quiet_from + 2:
                break
            self._before(deadline)
            time.sleep(0.01)
        with self._looked:
            looks, self._since = self._looks, None
        return next((look.ruling for look in reversed(looks) if look.ruling is not None), None)

    def _before(self, deadline: float) -> None:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the board did not settle within {self.timeout:.0f} s")

    def set_board(self, layout: Layout) -> frozenset[Key]:
        """Set the grids' switches to `layout` and wait until every link reports them and the table has heard
        them (but for a table on a clock of its own, whose driver tells the observer: `own_clock`): the closed
        switches."""
        wanted = self._closed(layout)
        if self.camera is not None:
            self.camera.touched(layout)  # (a piece picked up and set down again lies otherwise than it lay)
        self._set_switches(wanted)
        deadline = time.monotonic() + self.timeout
        observer = self.live.observer
        observer = observer if observer is not None and observer.watches_grid() and not self.own_clock else None
        heard = frozenset() if observer is None else self._heard(observer, wanted)
        while self.occupancy() != wanted or (observer is not None and observer.occupied() != heard):
            self._before(deadline)
            time.sleep(0.001)
        return wanted

    @staticmethod
    def _heard(observer: Observer, closed: frozenset[Key]) -> frozenset[str]:
        """The sites the observer takes as occupied once it has heard `closed`."""
        sites = (observer.switch_sites.get(switch) for switch in closed)
        return frozenset(site for site in sites if site is not None)

    def flash(self, layout: Layout, seconds: float) -> None:
        """A board that lasts less than the settle window: a hand sliding a piece over other sites."""
        self._set_switches(self._closed(layout))
        time.sleep(seconds)

    def camera_vanishes(self) -> None:
        """The camera's cable is pulled: no more frames (the table finds out, and tells the phones)."""
        if self.frames is not None:
            self.frames.unplug()

    def move_calibration_magnet(self) -> None:
        """While a walk-through runs, a player moves one magnet to each site it names (lifting a piece that stands
        there and setting it down again); the game's pieces stay where they are."""
        walk = self.web.guides.walk
        site = walk.status()["site"] if walk is not None and walk.running else None
        if site == self._magnet or (site is not None and site not in self.sites):
            return
        layout = self.session.game.layout(self.session.state)
        if self._magnet is not None and not layout.get(self._magnet):
            self._press(self.sites[self._magnet], False)
        self._magnet = site
        if site is None:
            return
        time.sleep(max(self.pace, 0.1))
        if layout.get(site):
            self._press(self.sites[site], False)
            time.sleep(0.1)
        self._press(self.sites[site], True)

    def tap_placed(self) -> bool:
        """A player taps Placed when the setup guide asks for a piece the sensors cannot see (True if tapped)."""
        guide = self.web.guides.guide
        if guide is None or not guide.running or guide.status()["how"] != "tap":
            return False
        try:
            self.phones.guide("placed")
        except NotNow:
            return False  # it ended meanwhile
        return True

    def set_out(self, session: Session) -> None:
        """The players clear the board and set the new game's pieces out one at a time, bottom of each stack first,
        as the page's guide asks."""
        self.show({})
        layout: dict[str, tuple[str, ...]] = {}
        for step in placement_order(session.game.layout(session.state), list(self.sites)):
            layout[step.site] = (*layout.get(step.site, ()), step.piece)
            self.show(layout)
            time.sleep(self.pace)

    # The players.
    def step(self) -> bool:
        """One action by the scripted table; False once the game is over. A game a phone started is set out first;
        while the table holds its referee back (a calibration, a guided setup) the players wait, tap Placed, or
        move the calibration magnet."""
        new, self._new = self._new, None
        if new is not None:
            self.set_out(new)
            return True
        if self.loop.paused:
            self.move_calibration_magnet()
            time.sleep(self.pace if self.tap_placed() else 0.02)
            return True
        self.move_calibration_magnet()  # a walk-through just ended: the magnet comes off
        game, state = self.session.game, self.session.state
        if game.outcome(state) is not None:
            return False
        action = scripted_action(game, state, self.rng)
        before = game.layout(state)
        if self.illegal_after is not None and not self.stats.illegal_tried and len(self.session.actions) >= \
                self.illegal_after:  # fmt: skip
            self.try_illegal(before)
        result = game.apply(state, action)[0]
        after = game.layout(result)
        if action.type in game.board_moves and footprint(before, after).sites <= self.sensed:
            self._board_move(action, result, before, after)
        else:
            self.stats.phone_inputs += 1
            self.phones.declare(action, game.phase(state).actor)
            if after != before:
                self.show(after)
        if self.pace:
            time.sleep(self.pace)
        return True

    def _board_move(self, action: Action, result: Any, before: Layout, after: Layout) -> None:
        self.stats.board_moves += 1
        if self.rng.random() < self.illegal:
            self.try_illegal(before)
        count = len(self.session.actions)
        hands = f"the hands made {action}"
        if self.rng.random() < self.mess:
            self.stats.messy += 1
            detour = self._detour(before, after)
            hands += f", passing over {', '.join(sorted(set(detour) - set(after))) or 'no empty site'} for 0.04 s"
            self.flash(detour, 0.04)
        self.show(after)
        if len(self.session.actions) > count and self.session.state != result:
            # The table booked another move than the hand's: counted, and taken back on a phone so the game goes on.
            self._wrong(hands, count)
            while len(self.session.actions) > count:
                self.phones.undo(self.session.game.phase(self.session.state).actor)
        if self.session.state != result:
            # The hand is done and the table has not booked the move: whatever it ruled (a question, a move it
            # still sees under way, a board the sensors cannot tell from before), a player settles it on a phone.
            self.stats.taps += 1
            self.settle_on_phone(action, result)
        elif len(self.session.actions) != count + 1:
            self._wrong(hands, count)

    def _wrong(self, hands: str, count: int) -> None:
        """A wrong booking: counted, and said (what the hands did, what the table booked after entry `count`)."""
        booked = "; ".join(str(a) for a in self.session.actions[count:]) or "nothing"
        self.stats.wrong_accepted += 1
        self.stats.wrong.append(f"{hands}; the table booked {booked} (move {count + 1} of the game)")

    def settle_on_phone(self, action: Action, result: Any) -> None:
        """A player says on a phone what the table did: the open question's choice that leads to `result` (one
        choice or several: the player reads them), else a declaration of `action`. A question's choices are
        compared by the state they lead to, not by the action: the table offers one action per outcome. Should the
        table book the move by itself meanwhile (its hold window passed), the phone's late tap is refused, and the
        move stands."""
        session, loop = self.session, self.loop
        game, state = session.game, session.state
        question = loop.question
        try:
            if question is not None:
                wanted = game.state_to_json(result)
                for index, choice in enumerate(question.choices):
                    if game.is_legal(state, choice) and game.state_to_json(game.apply(state, choice)[0]) == wanted:
                        self.phones.choose(question.id, index, None)
                        return
            self.phones.declare(action, game.phase(state).actor)
        except IllegalAction:
            if self.session.state != result:
                raise

    def _detour(self, before: Layout, after: Layout) -> Layout:
        """The board halfway through the move: the moving piece over some other empty site."""
        empty = [site for site in self.sites if not after.get(site) and not before.get(site)]
        passing = dict(after)
        if empty:
            passing[self.rng.choice(empty)] = ("hand",)
        return passing

    def try_illegal(self, before: Layout) -> None:
        """Put a piece of the active player's (any piece while the table itself acts) on a site no rule allows, wait
        for the warning, put it back."""
        game, state = self.session.game, self.session.state
        actor = game.phase(state).actor
        piece = next((p for p in sum(before.values(), ()) if actor is None or p.endswith(f"-{actor}")), None)
        if piece is None:
            return
        # A site any legal action changes (a board move or one declared on a phone) may look like that action, whole
        # or part way done, to the grid: the wrong site is none of them.
        candidates = Referee(game).prepare(state).candidates
        legal = {self._closed(c.after) for c in candidates}
        touched = {site for c in candidates for site in c.footprint.sites}
        empty = [site for site in self.sites if not before.get(site) and site not in touched]
        self.rng.shuffle(empty)
        for site in empty:
            wrong = {s: tuple(p for p in ps if p != piece) for s, ps in before.items()}
            wrong[site] = (piece,)
            if self._closed(wrong) not in legal:
                break
        else:
            return
        count = len(self.session.actions)
        ruling = self.show(wrong)
        # At a person's pace the phones' warning is read before it is put right (not waited out when stopping).
        if self.pace and self.stopping.wait(self.pace * HOLD_WRONG):
            return
        # A board that is part of a legal move (a piece set where a move's first step puts it) is no illegal move:
        # the table rightly says what is still to do. Only the rest are counted.
        if ruling is None or ruling.verdict != "in_progress":
            self.stats.illegal_tried += 1
            self.stats.illegal_caught += ruling is not None and ruling.verdict == "mismatch"
        if len(self.session.actions) != count:
            self._wrong(f"the hands set {piece} on {site}, a site no rule allows", count)
        self.show(before)

    def play(self, max_actions: int = 10_000) -> TwinStats:
        for _ in range(max_actions):
            if not self.step():
                break
        return self.stats


def _point(port: Path, pty: str) -> None:
    """The twin's name for a grid's port, pointing at its pty (as /dev/serial/by-id points at a tty)."""
    port.unlink(missing_ok=True)
    port.symlink_to(pty)
