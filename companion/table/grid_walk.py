"""The reed grid's calibration walk-through, run from the phones while the table keeps serving.

The walk itself (the site asked, the refusals, skip, back, redo) is `GridRecording` from
companion/calibration/grid.py, the one `companion calibrate grid` drives in a terminal, and new switches are told
apart by the same `NewSwitches`; here a thread reads them through the table's own link, so the service need not be
stopped. At the end the profile is written atomically to the file the table reads, and the observer maps the
switches with it at once. The table holds its referee back meanwhile (web/table.py): calibration pieces are not
moves.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.boards import Board
from companion.calibration.grid import SETTLE, GridProfile, GridRecording, NewSwitches, save_profile
from companion.sensing.frames import Switch
from companion.table.observe import Observer
from companion.table.steps import Ending, NotNow, Ticker

POLL = 0.01  # seconds between looks at the grid's switches

Status = dict[str, Any]


@dataclass
class TableGrid:
    """A reed grid at a table as its calibration needs it: the running link (None before it starts), the profile
    file the table reads, and the observer that turns every grid's switches into sites for the referee. A table of
    several boards has one per grid: `place` None for the game board's own (its switches keyed (row, col)), else the
    board's place in the config's list (keyed (place, row, col)), whose sites the layout names with `prefix`."""

    board: Board
    link: Callable[[], Any]
    profile: Path
    observer: Observer
    on_calibrated: Callable[[GridProfile], None] = field(default=lambda profile: None)
    settle: float = SETTLE
    place: int | None = None
    prefix: str = ""

    def mine(self, key: Hashable) -> bool:
        """Is this switch key one of this grid's (the others' stay as they are when this grid is calibrated)?"""
        assert isinstance(key, tuple)
        return len(key) == 2 if self.place is None else len(key) == 3 and key[0] == self.place

    def mapping(self) -> dict[str, Switch]:
        """The board's own site id -> switch, as the table reads the board now (empty before the first calibration)."""
        return {site.removeprefix(self.prefix): (key[-2], key[-1])
                for key, site in dict(self.observer.switch_sites).items() if self.mine(key)}  # fmt: skip

    def size(self) -> tuple[int, int] | None:
        """The matrix the firmware reported, or None while no grid has answered."""
        link = self.link()
        info = None if link is None or not link.connected else link.info
        return None if info is None else (info.rows, info.cols)

    def closed(self) -> frozenset[Switch] | None:
        """The closed switches, or None while the link is not in step with the firmware (unplugged, resyncing)."""
        link = self.link()
        return link.occupancy() if link is not None and link.synced else None

    def use(self, profile: GridProfile) -> None:
        """Save the profile where the table reads it and read the board with it from now on."""
        save_profile(profile, self.profile)
        kept = {key: site for key, site in dict(self.observer.switch_sites).items() if not self.mine(key)}
        place = () if self.place is None else (self.place,)
        mine = {(*place, *switch): self.prefix + site for site, switch in profile.sites.items()}
        self.observer.remap({**kept, **mine})
        self.on_calibrated(profile)


class Walked:
    """What the walk-throughs run from the phones share (this one and the probe for which grid lies under which
    board, probe_walk.py): each change told to every phone, the end told once (to the table first: steps.Ending),
    a thread that reads the grids."""

    _lock: threading.Lock
    _on_change: Callable[[Status], None]
    _ticker: Ticker
    _ending: Ending

    def start(self) -> Status:
        """Tell the first step and start reading the switches."""
        status = self.status()
        self._on_change(status)
        self._ticker.start()
        return status

    def status(self) -> Status:
        """As every phone is told it: an end is told once the table has it."""
        return self._ending.read(self._lock, self._status)

    def _status(self) -> Status:
        raise NotImplementedError

    def _tell(self, status: Status, ended: bool) -> None:
        self._ending.tell(status, ended, self._ticker)  # an end: the table resumes its referee, then phones hear


class GridWalk(Walked):
    """One walk-through: `command` takes the phones' skip, back, redo, save and stop; a thread offers the switches
    that close. Every change is told to `on_change` (the stream), the end (saved or stopped) to `on_end`."""

    def __init__(
        self,
        grid: TableGrid,
        sites: Sequence[str] | None,
        on_change: Callable[[Status], None],
        on_end: Callable[[], None],
        every: float = POLL,
    ) -> None:
        size = grid.size()
        if size is None:
            raise NotNow("the reed grid is not answering: check its USB cable, then start again")
        rows, cols = size
        board = grid.board
        # The page names a board beside the game's own by the layout's ids ("p3:0403"), the profile by the board's.
        walked = [site.removeprefix(grid.prefix) for site in sites] if sites else [site.id for site in board.sites]
        for site in walked:
            if not board.has_site(site):
                raise ValueError(f"sites: board {board.name!r} has no site {site!r}")
        if len(set(walked)) != len(walked):
            raise ValueError("sites: a site is named twice")
        if len(walked) > rows * cols:
            raise NotNow(f"the board has {len(walked)} sites but the grid only {rows * cols} switches")
        # Walking a few sites keeps the others as the table reads them now (those that fit this grid).
        keep = {site: switch for site, switch in grid.mapping().items()
                if site not in walked and switch[0] < rows and switch[1] < cols} if sites else {}  # fmt: skip
        self.grid = grid
        self.profile = grid.profile  # the board walked: a game on another board ends the walk (web/table.py)
        self.recording = GridRecording(board, walked, rows, cols, keep)
        self.state = "walking"  # then "review" (every site had its turn, some have no switch), "saved", "stopped"
        self.message: str | None = None
        self.refused = False
        self._lost = False
        self._lock = threading.Lock()
        self._on_change = on_change
        self._ending = Ending(on_change, on_end)
        self._watch = NewSwitches(grid.closed() or (), grid.settle)
        self._ticker = Ticker(self._look, every, "grid-walk")

    @property
    def running(self) -> bool:
        return self.state in ("walking", "review")

    def command(self, do: str, site: str | None = None) -> Status:
        """skip, back, redo (a site), save (what is recorded, as it is) or stop (nothing saved)."""
        with self._lock:
            if not self.running:
                raise NotNow("no walk-through is running: start one")
            recording = self.recording
            if do == "skip":
                recording.skip()
            elif do == "back":
                recording.back()
            elif do == "redo":
                if site is None:
                    raise ValueError("site: missing; expected the site to ask again")
                recording.redo(site.removeprefix(self.grid.prefix))
            elif do not in ("save", "stop"):
                raise ValueError(f"do: expected skip, back, redo, save or stop, not {do!r}")
            self.message, self.refused = None, False  # (a refused request above changed nothing, this included)
            if do == "save":
                self._save()
            elif do == "stop":
                self.state = "stopped"
                self.message = "Stopped: nothing was saved; the table reads the board as before."
            if do in ("skip", "back", "redo"):
                self._moved_on()
                # The step changed under the player's hands: what is closed now counts only once it has opened.
                self._watch = NewSwitches(self.grid.closed() or (), self.grid.settle)
            status, ended = self._status(), self._ending.mark(not self.running)
        self._tell(status, ended)
        return status

    def _look(self) -> bool:
        closed = self.grid.closed()
        with self._lock:
            if not self.running:
                return False
            changed = (closed is None) != self._lost
            self._lost = closed is None
            found = None if closed is None else self._watch.feed(closed, time.monotonic())
            if found and self.state == "walking":
                offer = self.recording.offer(found)
                self.message, self.refused = offer.text, offer.verdict != "mapped"
                self._moved_on()
                changed = True
            status, ended = (self._status() if changed else None), changed and self._ending.mark(not self.running)
        if status is not None:
            self._tell(status, ended)
        return not ended

    def _moved_on(self) -> None:
        """After every step: past the last site, save if every site has a switch, else let the players choose."""
        unmapped = self.recording.unmapped()
        if self.recording.site is not None:
            self.state = "walking"
        elif not unmapped:
            self._save()
        else:
            self.state = "review"

    def _save(self) -> None:
        profile = self.recording.profile()
        try:
            self.grid.use(profile)
        except OSError as error:
            self.message, self.refused = f"Could not save {self.grid.profile}: {error.strerror or error}.", True
            if self.recording.site is None:
                self.state = "review"  # the players choose: save again, or stop
            return
        self.state = "saved"
        unmapped = len(self.recording.unmapped())
        # (the file is the status's `profile`: a path has no place in the players' words, and would not fit a phone)
        self.message = (f"Saved: {len(profile.sites)} sites mapped"
                        f"{f', {unmapped} without a switch' if unmapped else ''}. The table reads the board with it "
                        "now.")  # fmt: skip

    def _status(self) -> Status:
        recording = self.recording
        site = recording.site if self.state == "walking" else None
        unmapped = recording.unmapped()
        if self.state == "review" and unmapped:
            names = ", ".join(recording.name(s) for s in unmapped[:6]) + (", ..." if len(unmapped) > 6 else "")
            text = (f"{len(unmapped)} site{'s have' if len(unmapped) > 1 else ' has'} no switch ({names}): tap one on "
                    "the map to redo it, or save without them.")  # fmt: skip
        elif self.state == "review":
            text = "Every site has a switch: save again, or stop."
        elif self.state == "walking":
            text = recording.prompt()
        else:
            text = self.message or ""
        prefix = self.grid.prefix
        return {
            "board": self.grid.board.name,
            "probe": False,
            "state": self.state,
            "step": min(recording.index + 1, len(recording.sites)),
            "total": len(recording.sites),
            "site": None if site is None else prefix + site,
            "name": None if site is None else recording.name(site),
            "text": text,
            "message": self.message,
            "refused": self.refused,
            "mapped": len(recording.sites) - len(unmapped),
            "unmapped": [prefix + s for s in unmapped],
            "grid": "lost" if self._lost else "up",
            "profile": str(self.grid.profile),
        }
