"""The guided setup: after a new game the table is walked through the layout the rules expect, one piece at a time,
bottom of each stack first (planets and stations before the ships on them).

A piece counts as placed when the sensors see it there: the grid's switch closing under the bottom of a stack, or
the camera seeing the piece (the only sense that can see a piece set on one already there), if it is a kind the
camera tells apart (ORBIT's camera knows planets and ships, not station tiles). Where neither can tell, a phone taps
"placed". A piece set down on a site where nothing goes yet is named with where the piece asked for
belongs. The referee is held back meanwhile (web/table.py); once every piece is placed it judges the board as usual.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.boards import Board
from companion.rules.engine import points_to, unpointed
from companion.table.observation import Observation, same_piece
from companion.table.observe import Observer
from companion.table.steps import Ending, NotNow, Ticker
from companion.table.words import COLOURS, piece_words

POLL = 0.05  # seconds between looks at the board
Status = dict[str, Any]


@dataclass(frozen=True)
class Placement:
    piece: str
    site: str
    level: int  # its place in the stack, 0 at the bottom


def _kind(piece: str) -> str:
    parts = piece.split("-")
    return parts[1] if parts[0] in COLOURS and len(parts) > 1 else parts[0]


def placement_order(layout: Mapping[str, Sequence[str]], sites: Sequence[str]) -> list[Placement]:
    """Every piece of the layout, the bottom of every stack before anything on top of it; within one level, one
    kind of piece after another (all the planets, then all the stations), each in the board's order of `sites`."""
    position = {site: i for i, site in enumerate(sites)}
    placements = [Placement(piece, site, level) for site, stack in layout.items() for level, piece in enumerate(stack)]
    return sorted(placements, key=lambda p: (p.level, _kind(p.piece), position.get(p.site, len(position)), p.site))


class SetupGuide:
    """One guided setup. `observer` is the table's (None: phones alone, every step a tap); a thread follows the
    settled board while it runs. Every change goes to `on_change`, the end (all placed, or stopped) to `on_end`."""

    def __init__(
        self,
        layout: Mapping[str, Sequence[str]],
        board: Board,
        observer: Observer | None,
        on_change: Callable[[Status], None],
        on_end: Callable[[], None],
        every: float = POLL,
        physical: Callable[[str], str] = same_piece,
    ) -> None:
        """`physical`: the piece in the box a layout name stands for (Game.physical_piece); a piece named otherwise
        than the camera names it is left to the grid or a tap."""
        self.board = board
        self.physical = physical
        self.layout = {site: tuple(stack) for site, stack in layout.items()}
        self.order = placement_order(layout, [site.id for site in board.sites])
        self.observer = observer
        self.done = 0
        self.state = "placing"  # then "placed" or "stopped"
        self.wrong: tuple[str, ...] = ()
        self.message: str | None = None
        self._last: Observation | None = None  # the last settled board seen
        self._astray = False  # the board changed since, and not by the piece asked for: a move made too early
        self._many = Counter(piece for stack in self.layout.values() for piece in stack)
        self._lock = threading.Lock()
        self._on_change = on_change
        self._ending = Ending(on_change, on_end)
        self._ticker = Ticker(self._look, every, "setup-guide") if observer is not None else None
        if not self.order:
            self._finish()

    def start(self) -> Status:
        """Tell the first step and start following the board."""
        status = self.status()
        self._on_change(status)
        if self.running and self._ticker is not None:
            self._ticker.start()
        return status

    def cancel(self) -> None:
        """End it at once, telling no one (a new game replaces it; the table tells the phones)."""
        with self._lock:
            self.state = "stopped"
            self.wrong, self.message = (), "A new game has begun."
        if self._ticker is not None:
            self._ticker.stop(wait=False)  # its next look sees the guide has ended

    @property
    def running(self) -> bool:
        return self.state == "placing"

    def status(self) -> Status:
        """As every phone is told it: an end is told once the table has it."""
        return self._ending.read(self._lock, self._status)

    def command(self, do: str) -> Status:
        """placed (the piece asked for is on its site: a tap), back (ask the one before again) or stop."""
        with self._lock:
            if not self.running:
                raise NotNow("the setup is not being guided now: start the guide first")
            if do == "placed":
                self.done += 1
                self._astray = False
            elif do == "back":
                if self.done == 0:
                    raise ValueError("this is the first piece")
                self.done -= 1
            elif do != "stop":
                raise ValueError(f"do: expected placed, back or stop, not {do!r}")
            self.wrong, self.message = (), None
            if do == "stop":
                self.state = "stopped"
                self.message = (
                    "The guide has stopped. The companion checks the board now."
                    if self.observer is not None
                    else "The guide has stopped. Play on: moves are declared on the phones."
                )
            elif self.done == len(self.order):
                self._finish()
            status, ended = self._status(), self._ending.mark(not self.running)
        self._tell(status, ended)
        return status

    # Following the board.
    def _look(self) -> bool:
        assert self.observer is not None
        observation = self.observer.peek(time.monotonic())
        with self._lock:
            if not self.running:
                return False
            if observation is None:
                return True
            before = (self.done, self.wrong, self.message, self._how())
            moved = self._last is not None and observation.sites != self._last.sites
            self._last = observation
            while self.done < len(self.order) and self._seen(self.done, observation):
                self.done += 1
            if self.done != before[0]:
                self._astray = False
            elif moved and before[3] == "tap":
                # A piece moved while the guide waits for a tap (one forgotten): the group is playing, and the
                # referee is held back until the board is set out. Every such move is answered.
                self._astray = True
            if self.done == len(self.order):
                self._finish()
            else:
                self._check_wrong(observation)
            changed = (self.done, self.wrong, self.message, self._how()) != before
            status, ended = (self._status() if changed else None), changed and self._ending.mark(not self.running)
        if status is not None:
            self._tell(status, ended)
        return not ended

    def _seen(self, index: int, observation: Observation) -> bool:
        step = self.order[index]
        reading = observation.reading(step.site)
        if reading.pieces is not None and self._camera_knows(step.piece, observation):
            # The camera sees this site and this kind of piece: the piece itself must be there.
            wanted = sum(1 for p in self.order[: index + 1] if (p.site, p.piece) == (step.site, step.piece))
            return Counter(map(unpointed, reading.pieces))[unpointed(self.physical(step.piece))] >= wanted
        if step.level == 0 and reading.occupied is not None:
            return reading.occupied
        return False  # a piece on another: only a tap says so

    def _camera_knows(self, piece: str, observation: Observation) -> bool:
        kinds = observation.camera_pieces
        return kinds is None or unpointed(self.physical(piece)) in kinds

    def _check_wrong(self, observation: Observation) -> None:
        self._check_sites(observation)
        if self._astray:
            left = len(self.order) - self.done
            lead = f"Set out the board first: {left} {'piece' if left == 1 else 'pieces'} still to place."
            self.message = f"{lead} {self.message or self._asked()}"

    def _check_sites(self, observation: Observation) -> None:
        expected = {p.site for p in self.order[: self.done + 1]}
        wrong = tuple(site for site, reading in sorted(observation.sites.items())
                      if site not in expected and (reading.occupied or reading.pieces))  # fmt: skip
        # A piece placed at the bottom of a stack whose site the grid now reads empty was taken off again.
        gone = [p for p in self.order[: self.done] if p.level == 0 and observation.reading(p.site).occupied is False]
        self.wrong = tuple(sorted({*wrong, *(p.site for p in gone)}))
        if not wrong and gone:
            self.message = " ".join(f"Put {self._words(p)} back on {self._name(p.site)}." for p in gone)
            return
        if not wrong:
            self.message = None
            return
        step = self.order[self.done]
        what, goes = self._words(step), self._name(step.site)
        piece = unpointed(self.physical(step.piece))
        seen_on = next((s for s in wrong if piece in map(unpointed, observation.reading(s).pieces or ())), None)
        first = seen_on or wrong[0]
        later = next((p for p in self.order[self.done + 1 :] if p.site == first), None)
        if seen_on is not None:
            text = f"Wrong site: {what} is on {self._name(seen_on)}; it belongs on {goes}."
        elif later is not None:
            text = f"Wrong site for now: {self._name(first)} is for {self._words(later)}, later. {what.capitalize()} " \
                   f"belongs on {goes}."  # fmt: skip
        else:
            text = f"Wrong site: nothing goes on {self._name(first)}. {what.capitalize()} belongs on {goes}."
        others = [self._name(s) for s in wrong if s != first]
        if others:
            text += f" Take the pieces off {', '.join(others)} too."
        self.message = text

    def _finish(self) -> None:
        self.state = "placed"
        self.wrong = ()
        self.message = f"Every piece is placed ({len(self.order)} of {len(self.order)}). The companion checks the " \
                       "board now."  # fmt: skip

    # Words.
    def _name(self, site: str) -> str:
        return self.board.site(site).name if self.board.has_site(site) else site

    def _words(self, step: Placement) -> str:
        return self._the(step.piece)

    def _the(self, piece: str) -> str:
        """ "the red planet", or "a portal station" when the layout has several alike."""
        heading = points_to(piece)
        towards = f" pointing to {self._name(heading)}" if heading else ""
        return f"{'a' if self._many[piece] > 1 else 'the'} {piece_words(piece)}{towards}"

    def _how(self) -> str | None:
        """How the piece asked for counts as placed: "sensors" when they can see it arrive, else "tap"."""
        if not self.running or self.done >= len(self.order):
            return None
        step = self.order[self.done]
        if self.observer is None:
            return "tap"
        grid, camera = self.observer.watches(step.site)
        # The camera may be blind at this site (a stack too tall to vouch for), or not know this kind of piece.
        blind = self._last is not None and (
            self._last.reading(step.site).pieces is None or not self._camera_knows(step.piece, self._last)
        )
        return "sensors" if (camera and not blind) or (grid and step.level == 0) else "tap"

    def _asked(self) -> str:
        """The step asked for now, in words ("Put the red ship on orbit 1 space 2, on the red planet, then tap
        Placed.")."""
        step = self.order[self.done]
        below = self.layout[step.site][step.level - 1] if step.level else None
        on_top = f", on {self._the(below)}" if below else ""
        return f"Put {self._words(step)} on {self._name(step.site)}{on_top}" + (
            ", then tap Placed." if self._how() == "tap" else "."
        )

    def _status(self) -> Status:
        total = len(self.order)
        step = self.order[self.done] if self.running and self.done < total else None
        text = self.message or ""
        how = self._how()
        if step is not None:
            text = self._asked()
        return {
            "state": self.state,
            "placed": self.done,
            "total": total,
            "count": f"{self.done} of {total} placed",
            "piece": None if step is None else step.piece,
            "site": None if step is None else step.site,
            "name": None if step is None else self._name(step.site),
            "text": text,
            "how": how,
            "wrong": list(self.wrong),
            "message": self.message,
            "order": [[p.piece, p.site] for p in self.order],
        }

    def _tell(self, status: Status, ended: bool) -> None:
        self._ending.tell(status, ended, self._ticker)  # an end: the table resumes its referee, then phones hear
