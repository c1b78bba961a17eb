"""The digital twin: scripted players play a real game through a simulated board.

Everything below the players is the real thing: a grid process speaking the firmware's protocol over a pty (the
virtual grid, or the real firmware in simavr), the host link, the observer, the referee's loop, the session and
its SQLite log. The players move pieces by closing and opening switches; now and then they slide a piece across
other sites, lift one and put it back, or make an illegal move and then put it right, as people do. Actions that
never touch the board (a card drawn, a station built) they declare on a phone, then make the board match.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.boards import Board
from companion.rules import Action
from companion.rules.engine import Layout
from companion.sensing.reed import ReedLink
from companion.sim.players import scripted_action
from companion.sim.simavr_grid import GridProcess
from companion.sim.twin_camera import TwinCamera
from companion.sim.wire import FaultyWire
from companion.table.footprint import footprint
from companion.table.loop import TableLoop
from companion.table.observe import Observer
from companion.table.referee import Referee, Ruling
from companion.table.senses import Senses
from companion.table.session import Session
from companion.table.setup_guide import placement_order

if TYPE_CHECKING:
    from companion.sim.table_grids import BoardOnGrid
    from companion.sim.twin_spread import SpreadCamera

HOLD_WRONG = 4  # paces an illegal move stays on the board before its player puts it right

Switch = tuple[int, int]
Key = tuple[int, ...]  # a switch of the game board's grid (row, col), or of a board beside it (its place, row, col)


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


class Twin:
    def __init__(
        self,
        session: Session,
        grid: GridProcess,
        sites: Mapping[str, Switch],
        *,
        seed: int = 1,
        mess: float = 0.2,
        illegal: float = 0.05,
        settle: float = 0.12,
        site_name: Callable[[str], str] | None = None,
        pace: float = 0.0,
        wire: Path | None = None,
        camera: TwinCamera | SpreadCamera | None = None,
        profile: Path | None = None,
        illegal_after: int | None = None,
        beside: Sequence[BoardOnGrid] = (),
    ) -> None:
        """`wire`: a path for a USB cable between the grid and the host that can be unplugged; `camera`: the
        rendered camera over the table (None: a table with the grid alone; a SpreadCamera over the game's board and
        those beside it); `profile`: the grid profile file the
        table reads (a calibration from the phones writes it); `illegal_after`: once the game has this many actions,
        a player makes an illegal move at the first chance and puts it right (the demo shows one early in every
        game, whatever the dice say); `beside`: the boards beside the game's own, each on a grid of its own
        (Orbital Battle's planet maps), keyed as `companion serve` keys them: (place in the list, row, col)."""
        self.illegal_after = illegal_after
        self.stopping = threading.Event()  # set when the demo stops: a held illegal move is not waited out
        self.session = session
        self.profile = profile
        self.grid = grid
        self.beside = list(beside)
        self.sites: dict[str, Key] = {**sites, **{on.prefix + site: (index, *switch) for index, on in
                                                   enumerate(self.beside) for site, switch in on.sites.items()}}
        self.beside_links: list[ReedLink] = []
        self.rng = random.Random(seed)
        self.mess, self.illegal, self.pace = mess, illegal, pace
        camera_sites = camera.sites if camera is not None else None
        # Every site a sense reads: the grids' and the camera's (a planet map with no grid under it, camera alone).
        self.sensed = frozenset(self.sites) | (camera_sites or frozenset())
        self.observer = Observer({switch: site for site, switch in self.sites.items()}, camera_sites, settle=settle)
        self.loop = TableLoop(session, self.observer, site_name)
        self.senses = Senses(session, self.observer, grid=True, camera=camera is not None)
        self.camera = camera
        self.stats = TwinStats()
        self.link: ReedLink | None = None
        self.wire_path = wire
        self.wire: FaultyWire | None = None
        self.timeout = 10.0
        # The site a calibration walk-through asks for now (None: none runs): the players set a magnet there.
        self.calibrating: Callable[[], str | None] = lambda: None
        # A guided setup asking for a tap on a piece the sensors cannot see: a player taps Placed (True if tapped).
        self.tap_placed: Callable[[], bool] = lambda: False
        self._magnet: str | None = None
        self.table_grid: Any = None  # the grid as the phones' walk-through sees it (the demo's), once there is one

    def __enter__(self) -> Twin:
        self.grid.start()
        self.grid.go()
        port = self.grid.port
        if self.wire_path is not None:
            self.wire = FaultyWire(self.grid.port, self.wire_path).start()
            port = str(self.wire_path)
        self.link = ReedLink(port, silence_timeout=2.0, on_link=self._grid_link).start()
        for on_grid in self.beside:
            on_grid.grid.start()
            on_grid.grid.go()
            self.beside_links.append(ReedLink(on_grid.grid.port, silence_timeout=2.0, on_link=self._grid_link).start())
        if not all(link.wait_synced(10.0) for link in self.links()):
            raise RuntimeError("a grid did not answer the handshake")
        self.show(self.session.game.layout(self.session.state))
        return self

    def __exit__(self, *exc: object) -> None:
        for link in self.links():
            link.stop()
        if self.wire is not None:
            self.wire.stop()
        self.grid.stop()
        for on_grid in self.beside:
            on_grid.grid.stop()

    def links(self) -> list[ReedLink]:
        """Every grid's link: the game board's first, then the boards' beside it in their order."""
        return [link for link in (self.link, *self.beside_links) if link is not None]

    def _grid_link(self, up: bool) -> None:
        # The table's grid is up while every grid under its boards is (a planet map away would read as empty).
        self.senses.grid(up and all(link.connected for link in self.links()))

    def occupancy(self) -> frozenset[Key] | None:
        """Every grid's closed switches, keyed as the observer's switch map; None while a link is out of step."""
        links = self.links()
        if not all(link.synced for link in links):
            return None
        closed: set[Key] = set(links[0].occupancy())
        for index, link in enumerate(links[1:]):
            closed |= {(index, *switch) for switch in link.occupancy()}
        return frozenset(closed)

    def _set_switches(self, closed: frozenset[Key]) -> None:
        self.grid.set_all({(key[0], key[1]) for key in closed if len(key) == 2})
        for index, on_grid in enumerate(self.beside):
            on_grid.grid.set_all({(key[1], key[2]) for key in closed if len(key) == 3 and key[0] == index})

    def _press(self, key: Key, closed: bool) -> None:
        """One switch of one grid, closed or opened (a calibration magnet)."""
        grid = self.grid if len(key) == 2 else self.beside[key[0]].grid
        row, col = key[-2:]
        (grid.close_switch if closed else grid.open_switch)(row, col)

    def switch(self, session: Session, loop: TableLoop) -> None:
        """Play a new game at the same table (one a phone started): its session and loop. The players clear the
        board and set the pieces out one at a time, bottom of each stack first, as the page's guide asks."""
        self.session, self.loop = session, loop
        self.show({})
        layout: dict[str, tuple[str, ...]] = {}
        for step in placement_order(session.game.layout(session.state), list(self.sites)):
            layout[step.site] = (*layout.get(step.site, ()), step.piece)
            self.show(layout)
            time.sleep(self.pace)

    def rewire(self, board: Board, camera: TwinCamera | None = None) -> None:
        """Another board laid over the grid (a game on another board): the grid under it, wired in that board's site
        order, as the table's calibration of that board records it (one with more sites than the grid has switches
        lies on no switch); `camera` (None: none) watches it. The boards beside keep their own grids."""
        rows, cols = self.grid.rows, self.grid.cols
        own = switch_map(board, rows, cols) if len(board.sites) <= rows * cols else {}
        beside = {site: key for site, key in self.sites.items() if len(key) == 3}
        self.sites = {**own, **beside}
        self.observer.remap({key: site for site, key in self.sites.items()})
        self.camera = camera
        self.observer.watch_sites(frozenset(own) if camera is not None else None)

    def move_calibration_magnet(self) -> None:
        """While a walk-through runs, a player moves one magnet to each site it names (lifting a piece that stands
        there and setting it down again); the game's pieces stay where they are."""
        site = self.calibrating()
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

    # The physical table.
    def _closed(self, layout: Layout) -> frozenset[Key]:
        return frozenset(self.sites[site] for site, pieces in layout.items() if pieces and site in self.sites)

    def show(self, layout: Layout) -> Ruling | None:
        """Set the board to `layout` and wait until the table's loop has judged it (if the grid sees a change)."""
        assert self.link is not None
        wanted = self._closed(layout)
        self._set_switches(wanted)
        deadline = time.monotonic() + self.timeout
        framed = False
        while time.monotonic() < deadline:
            now = time.monotonic()
            occupancy = self.occupancy()
            if occupancy is None:  # what a link holds is stale until its next snapshot
                time.sleep(0.005)
                continue
            self.observer.reed(occupancy, now)
            if occupancy == wanted:
                if self.camera is not None and not framed and self.observer.grid_quiet(now):
                    self.observer.camera(self.camera.look(layout, time.monotonic()))
                    framed = True
                ruling = self.loop.tick(now)
                # Settled with no ruling: the loop has already judged this very board (the grid saw no change).
                if ruling is not None or self.observer.settled_at(now) is not None:
                    return ruling
            time.sleep(0.005)
        raise TimeoutError(f"the board did not settle within {self.timeout:.0f} s")

    def set_board(self, layout: Layout) -> frozenset[Key]:
        """Set the grids' switches to `layout` and wait until every link reports them: the closed switches (the
        caller tells the observer, on a clock of its own)."""
        wanted = self._closed(layout)
        self._set_switches(wanted)
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.occupancy() == wanted:
                return wanted
            time.sleep(0.001)
        raise TimeoutError(f"the grids did not report the board within {self.timeout:.0f} s")

    def camera_vanishes(self) -> None:
        """The camera's cable is pulled: no more frames, and the table is told."""
        self.camera = None
        self.senses.camera(False)

    def flash(self, layout: Layout, seconds: float) -> None:
        """A board that lasts less than the settle window: a hand sliding a piece over other sites."""
        self._set_switches(self._closed(layout))
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            occupancy = self.occupancy()
            if occupancy is not None:
                self.observer.reed(occupancy, time.monotonic())
            self.loop.tick(time.monotonic())
            time.sleep(0.005)

    # The players.
    def step(self) -> bool:
        """One action by the scripted table; False once the game is over. While the table holds its referee back
        (a calibration, a guided setup) the players wait, or move the calibration magnet."""
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
            self.session.submit(action, "phone", game.phase(state).actor)
            if after != before:
                self.show(after)
        if self.pace:
            time.sleep(self.pace)
        return True

    def _board_move(self, action: Action, result: Any, before: Layout, after: Layout) -> None:
        self.stats.board_moves += 1
        if self.rng.random() < self.illegal:
            self.try_illegal(before)
        if self.rng.random() < self.mess:
            self.stats.messy += 1
            self.flash(self._detour(before, after), 0.04)
        count = len(self.session.actions)
        self.show(after)
        if self.session.state != result:
            # The hand is done and the table has not booked the move: whatever it ruled (a question, a move it
            # still sees under way, a board the sensors cannot tell from before), a player settles it on a phone.
            self.stats.taps += 1
            self.settle_on_phone(action, result)
        if len(self.session.actions) != count + 1 or self.session.state != result:
            self.stats.wrong_accepted += 1

    def settle_on_phone(self, action: Action, result: Any) -> None:
        """A player says on a phone what the table did: the open question's choice that leads to `result` (one
        choice or several), else a declaration of `action`. A question's choices are compared by the state they
        lead to, not by the action: the table offers one action per outcome."""
        session, loop = self.session, self.loop
        game, state = session.game, session.state
        question = loop.question
        if question is not None:
            wanted = game.state_to_json(result)
            for index, choice in enumerate(question.choices):
                if game.is_legal(state, choice) and game.state_to_json(game.apply(state, choice)[0]) == wanted:
                    loop.choose(question.id, index, None)
                    return
        session.submit(action, "phone", game.phase(state).actor)

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
            self.stats.wrong_accepted += 1
        self.show(before)

    def play(self, max_actions: int = 10_000) -> TwinStats:
        for _ in range(max_actions):
            if not self.step():
                break
        return self.stats
