"""Hands in time at the twin's table: each action carried out touch by touch (hand_time.py) on the twin's grids (and
camera), on a clock of its own, and what the table made of it: the measuring instrument of `companion bench messy`.

The clock is the table's only sense of time: the observer is told when each switch changed and the loop is asked to
look at the board every few hundredths of a second of it, as `companion serve` does every few milliseconds, so a
hand held ten seconds in the air costs no ten seconds here. The grids themselves are real processes on
pseudo-terminals: every board the hands make is set on them and read back through the host link before the observer
hears of it. The camera, where there is one, is a USB webcam (shared/WORLD.md, `Webcam`): it streams frames at its
own rate whether the table wants them or not, each reaching the table a while after it was exposed (the exposure,
then the MJPEG transfer and decoding) and stamped when it arrives, as the table stamps every frame; it sees the arm
while a hand is over the board during its exposure. A frame of a scene it photographed less than four seconds before
(the same pieces, an arm over the board or not) is that photograph again (a render costs a second or more). Each
frame is read by the table's own reader, as `companion serve` reads it (table/live.py), and the observer hears of it
once the reading's CPU time has passed on the clock: the camera's share of a booking is the table's, measured.

Counted per action, from what a phone sees only (rulings, the log, the loop's question): wrong bookings (at the moment
the player looks at a phone the table's books hold another action than the hand's, and the table did not put it
right itself), corrections (the table put a booking right itself, in one announced entry), advice to undo, taps, and
the time from the hand's last movement to the table's own booking of its move.
"""

from __future__ import annotations

import bisect
import random
import time
from dataclasses import dataclass
from typing import Any

from companion.rules import Action, Game
from companion.sim.hand_play import HandTable, chancy, sensed
from companion.sim.hand_time import Geometry, People, Timeline, boards, timeline
from companion.sim.hands import Frame, footprint
from companion.sim.players import scripted_action
from companion.sim.twin import Twin
from companion.table.live import TICK
from companion.table.observe import CameraView
from companion.table.store import Entry

QUICK = TICK  # seconds between the loop's looks at the board while hands are at it: `companion serve`'s own
SLOW = 0.1  # ... once the board has been still a while and no action is under way (a phone not yet looked at)
STILL = 1.5
AGAIN = 4.0  # seconds after which a scene photographed already is rendered afresh (new noise, a new chance to read)
KEPT = 2.0  # seconds of the hands' past kept for frames still on their way to the table


@dataclass(frozen=True)
class Webcam:
    """A USB webcam's timing (shared/WORLD.md): indoor light's exposures of 1/60-1/15 s hold it to 15-30 frames a
    second, and an MJPEG frame reaches the host one to two frame intervals after its exposure ends (sent over USB,
    then decoded)."""

    fps: tuple[float, float] = (15.0, 30.0)
    exposure: tuple[float, float] = (1 / 60, 1 / 15)
    transfer: tuple[float, float] = (1.0, 2.0)  # frame intervals from the exposure's end to the host

    def end(self, slow: bool) -> Webcam:
        """The camera at the range's slow end (the fewest frames a second, the longest exposure and transfer) or
        its quick one."""

        def at(span: tuple[float, float], high: bool) -> tuple[float, float]:
            return (span[high], span[high])

        return Webcam(at(self.fps, not slow), at(self.exposure, slow), at(self.transfer, slow))

    def draw(self, rng: random.Random) -> tuple[float, float, float]:
        """One camera's (seconds between frames, exposure, seconds from the exposure's end to the table)."""
        every = 1.0 / rng.uniform(*self.fps)
        return every, min(rng.uniform(*self.exposure), every), rng.uniform(*self.transfer) * every


def twin_geometry(twin: Twin, board: Any) -> Geometry:
    """Where the twin's sites lie: `board` (the game's) and the boards beside it, each apart."""
    places = {site.id: (0, site.x, site.y) for site in board.sites}
    for index, on_grid in enumerate(twin.beside, start=1):
        places.update({on_grid.prefix + s.id: (index, s.x, s.y) for s in on_grid.board.sites})
    return Geometry(places)


class TimedTable(HandTable):
    """A twin played by the scripted players with hands in time: every action's first carry held `hold` seconds."""

    def __init__(
        self,
        twin: Twin,
        seed: int,
        hold: float,
        geometry: Geometry,
        people: People | None = None,
        webcam: Webcam | None = None,
        slower: float = 1.0,
    ) -> None:
        """`slower`: how many times slower than this machine's the table's CPU is (a Pi 4's core 3-5 times,
        shared/WORLD.md): the time it spends reading each frame is charged to the clock that many times over."""
        super().__init__(twin, seed, illegal=0.0)
        self.hold = hold
        self.people = people or People()
        self.geometry = geometry
        # The camera's own timing, drawn apart from the hands' (the same hands with the grid alone and the camera).
        self.every, self.exposure, self.delay = (webcam or Webcam()).draw(random.Random(f"webcam {seed}"))
        self.slower = slower
        self.now = time.monotonic() + 1.0  # the table's clock: after anything the twin showed it in real time
        self._changed_at = self.now
        self._next_frame = self.now  # when the next frame's exposure ends
        self._layout = twin.session.game.layout(twin.session.state)
        self._arm: str | None = None
        self._past: list[tuple[float, dict, str | None]] = [(self.now, self._layout, None)]  # (from, layout, arm)
        self._images: dict[tuple, tuple[Any, float]] = {}  # each scene photographed: its picture, and when
        self._reading: tuple[float, CameraView] | None = None  # a frame being read: when the reading is done, and it
        self._booked: float | None = None
        self._line: Timeline | None = None  # the action in hand: its touches and arms, from `_start`
        self._start = self.now
        self._frame: tuple[Frame, dict, Any] | None = None  # the board the hands leave now, the board before, footprint
        self.renders = 0
        twin.session.entries.subscribe(self._entry)

    @property
    def webcam_lag(self) -> float:
        """The webcam's mean seconds from the arm leaving to the arrival of a frame that shows it gone: half a frame
        interval's wait for the next exposure, the exposure, the transfer."""
        return self.every / 2 + self.exposure + self.delay

    def _entry(self, entry: Entry) -> None:
        if entry.kind == "correction":
            self.stats.corrections += 1
            self._found(f"corrected: {' '.join(e['text'] for e in entry.events)}")

    # The clock.
    def _show(self, layout: dict, arm: str | None) -> None:
        """The hands leave `layout` on the table now, an arm over `arm` (None: no arm over the board)."""
        if sensed(layout, self.sites) != sensed(self._layout, self.sites):
            self._changed_at = self.now
        occupancy = self.twin.set_board(layout)
        self.twin.observer.reed(occupancy, self.now)
        self._layout, self._arm = layout, arm
        self._remember()

    def _remember(self) -> None:
        """The hands' board and arm from now on, for the frames exposed now that reach the table later."""
        if self._past[-1][1:] != (self._layout, self._arm):
            self._past.append((self.now, self._layout, self._arm))
        while len(self._past) > 1 and self._past[1][0] < self.now - KEPT:
            self._past.pop(0)

    def _at(self, t: float) -> tuple[dict, str | None]:
        """The board and the arm the hands left at `t`."""
        index = max(0, bisect.bisect_right([at for at, _, _ in self._past], t) - 1)
        return self._past[index][1], self._past[index][2]

    def _run(self, until: float, result: Any = None) -> None:
        """Let the clock run to `until`, the loop looking at the board as it goes and the arm following the hands."""
        while self.now < until - 1e-9:
            step = QUICK if self._line is not None or self.now - self._changed_at < STILL else SLOW
            self.now = min(until, self.now + step)
            if self._line is not None:
                self._arm = self._line.arm_at(self.now - self._start)
                self._remember()
            self._photograph()
            ruling = self.twin.loop.tick(self.now)
            if ruling is not None and self._frame is not None:
                self._judged(ruling, *self._frame)
            if self._booked is None and result is not None and self.twin.session.state == result:
                self._booked = self.now

    def _photograph(self) -> None:
        """The newest of the camera's frames that have reached the table by now, read as `companion serve` reads a
        frame (table/live.py) and stamped when it arrived; the observer hears of it once the reading's own CPU time
        has passed on the table's clock. Frames that arrive meanwhile are dropped but the newest, as a camera's queue
        of one does."""
        camera = self.twin.camera
        if self._reading is not None and self.now >= self._reading[0]:
            self.twin.observer.camera(self._reading[1])
            self._reading = None
        if camera is None or self._reading is not None or self._next_frame + self.delay > self.now:
            return
        behind = int((self.now - self.delay - self._next_frame) / self.every)
        end = self._next_frame + behind * self.every  # the newest exposure that has reached the table
        self._next_frame = end + self.every
        layout, arm = self._at(end)
        arm = arm or self._at(end - self.exposure)[1]  # an arm there during the exposure is in the frame
        scene = (tuple(sorted(sensed(layout, camera.sites).items())), arm is not None)
        image, taken = self._images.get(scene, (None, float("-inf")))
        if image is None or self.now >= taken + AGAIN:
            image, taken = camera.render(layout, arm)[0], self.now
            kept = {k: v for k, v in self._images.items() if self.now < v[1] + AGAIN}
            self._images = {**kept, scene: (image, taken)}
            self.renders += 1
        started = time.thread_time()
        view = self.twin.live.frame_view(image, end + self.delay)
        spent = time.thread_time() - started
        if view is not None:
            self._reading = (self.now + spent * self.slower, view)
            self.stats.frame_seconds.append(spent)

    # The players.
    def act(self) -> None:
        session = self.twin.session
        game, state, action, result, before, after = self.begin()
        self._booked = None
        declared = action.type not in game.board_moves
        if self.unseen_first(game, action, result, before, after):
            self._show(after, None)
            self._run(self.now + 0.5)
            return
        self.stats.board_changes += 1
        foot = footprint(sensed(before, self.sites), sensed(after, self.sites))
        tap_first = declared and (chancy(game, state, action) or self.rng.random() < self.people.tap_first)
        tellable = not tap_first and self.tellable(game, state, action, result)
        self.stats.tellable += tellable
        line = timeline(
            before, after, self.rng, self.people, self.hold, self.geometry, self._homeless(game, state, before)
        )
        count, taps = len(session.actions), self.stats.taps
        start = self.now
        if tap_first:
            self.stats.declared += 1
            self._tap(action, result, board=True)
        made = boards(before, after, line)
        self._line, self._start = line, start
        for at, layout, note in made:
            self._run(start + at, result)
            self._frame = (Frame(layout, True, note, frozenset(line.knocked)), before, foot)
            self._show(layout, line.arm_at(at))
        changes = [start] + [start + at for at, _, _ in made]  # the hands' movements
        done = start + max(line.end, made[-1][0])
        if declared and not tap_first:
            look = changes[-1] + self.rng.uniform(0.0, self.people.tap_within)
        else:
            look = done + self.rng.uniform(*self.people.look)
        self._run(max(look, done + QUICK), result)
        self._line, self._frame = None, None
        if session.state != result:
            if len(session.actions) > count or session.state != state:
                # The table holds another action than the hand's, and has not put it right: a wrong booking.
                self.stats.wrong_bookings += 1
                self._found(f"wrong booking ({', '.join(line.notes)}): booked {session.actions[-1]}")
                while len(session.actions) > count:
                    session.undo("phone")
            if session.state == state:
                self._tap(action, result, board=True)  # (a tap's time is the player's: not counted as the table's)
            else:  # an earlier move was changed: the players set the board out as the books now say, and go on
                self._found("the table changed the move before this one")
                self._show(game.layout(session.state), None)
                self._run(self.now + 1.0)
        if self._booked is not None and not declared:  # (a declared action is booked when its player taps)
            # From the hand's last movement before the booking (a nudge after it changes nothing booked).
            last = max(t for t in changes if t <= self._booked)
            self.stats.booked_after.append(self._booked - last)
            # With the camera the table waits for a frame with no arm over the board: from the arm's leaving on,
            # the wait is the camera's own (the rest of a frame interval, the exposure, the transfer).
            left = [start + arm.end for arm in line.arms if last <= start + arm.end <= self._booked]
            if self.twin.camera is not None and left:
                self.stats.booked_after_arm.append(self._booked - max(left))
        if tellable and self.stats.taps == taps:
            self.stats.tellable_untapped += 1
        elif tellable and not tap_first:
            self._found(
                f"tapped although the board alone tells it ({', '.join(line.notes)}): the table's last ruling "
                f"was {self._ruled}"
            )

    def _homeless(self, game: Game, state: Any, before: dict) -> Any:
        """May a piece knocked off `site` lie on `to` without the board looking like a legal move to the grid? (The
        rules' answer, worked out only when a knock asks.)"""

        def fine(site: str, to: str) -> bool:
            board = {s: p for s, p in before.items() if s != site}
            board[to] = before[site]
            seen = frozenset(sensed(board, self.sites))
            return all(
                frozenset(sensed(game.layout(game.apply(state, a)[0]), self.sites)) != seen
                for a in game.legal_actions(state)
            )

        return fine

    def play_moves(self, moves: int, max_actions: int = 2000) -> None:
        """Play until `moves` actions that change the board have been made by hand (or the game is over)."""
        session = self.twin.session
        for _ in range(max_actions):
            if self.stats.board_changes >= moves or session.game.outcome(session.state) is not None:
                return
            self.act()

    def skip(self, actions: int, rng: random.Random, opening: tuple[Action, ...] = ()) -> None:
        """Play `opening`, then `actions` actions, on the phones alone (the board set out after them): a game joined
        part way."""
        session = self.twin.session
        game = session.game
        for action in opening:
            session.submit(action, "phone", game.phase(session.state).actor)
        for _ in range(actions):
            if game.outcome(session.state) is not None:
                break
            action: Action = scripted_action(game, session.state, rng)
            session.submit(action, "phone", game.phase(session.state).actor)
        self._show(game.layout(session.state), None)
        self._run(self.now + 1.0)
