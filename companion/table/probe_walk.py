"""Which grid lies under which board, found from the phones while the table keeps serving (a table of several
grids: Orbital Battle's solar map and its planet maps).

The probe itself is calibration/grid_probe.py's `GridProbe`, the one `companion calibrate grids` drives in a terminal:
each board's marked hex is asked in turn, and the grid on which a switch closes is that board's. Here a thread reads
every grid through the table's own links; at the end the table reads each board from the grid that answered for it
(`on_bound`, which also writes the ports to the table's config when it has one). The stream carries it as a
calibration walk-through (same fields), so every phone shows the step and the map marks the hex asked."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from companion.calibration.grid import SETTLE
from companion.calibration.grid_probe import GridProbe, PortWatch
from companion.table.grid_walk import Status, Walked
from companion.table.steps import Ending, NotNow, Ticker

POLL = 0.01


def port_of(link: Any) -> str:
    """The port a link reads (the one it found, for a link that looks by USB id)."""
    return link.found_port or link.port or "the grid found by USB id"


@dataclass
class TableProbe:
    """The grids of a table of several boards: the link each board is read from now (the game's own board first),
    each board's layout prefix, and what to do with the answer (board -> the link that answered for it)."""

    links: Callable[[], Mapping[str, Any]]
    prefixes: Mapping[str, str]
    on_bound: Callable[[dict[str, Any]], None]
    settle: float = SETTLE


class ProbeWalk(Walked):
    """One probe from the phones, with the commands and status of a calibration walk-through: skip, back, stop
    (nothing changed) and save (once every board has its grid, it is saved by itself)."""

    def __init__(self, table: TableProbe, on_change: Callable[[Status], None], on_end: Callable[[], None],
                 every: float = POLL) -> None:  # fmt: skip
        links = dict(table.links())
        if len(links) < 2:
            raise NotNow("this table has one grid: there is nothing to tell apart")
        if not all(link is not None and link.connected for link in links.values()):
            raise NotNow("a reed grid is not answering: check every grid's USB cable, then start again")
        self.table = table
        self.by_port = {port_of(link): link for link in links.values()}
        self.probe = GridProbe(list(links), {board: port_of(link) for board, link in links.items()})
        self.state = "walking"  # then "saved" or "stopped"
        self.message: str | None = None
        self.refused = False
        self._lock = threading.Lock()
        self._on_change = on_change
        self._ending = Ending(on_change, on_end)
        self._watch = PortWatch(self._closed(), table.settle)
        self._ticker = Ticker(self._look, every, "grid-probe")

    @property
    def running(self) -> bool:
        return self.state == "walking"

    def command(self, do: str, site: str | None = None) -> Status:
        with self._lock:
            if not self.running:
                raise NotNow("no walk-through is running: start one")
            if do == "skip":
                self.probe.skip()
            elif do == "back":
                self.probe.back()
            elif do == "stop":
                self.state = "stopped"
                self.message = "Stopped: each board is read from the grid it was read from before."
            elif do != "save":
                raise ValueError(f"do: the probe takes skip, back, save or stop, not {do!r}")
            self.refused = False
            if do in ("skip", "back"):
                self._watch = PortWatch(self._closed(), self.table.settle)
            if self.running and (do == "save" or self.probe.board is None):
                self._save()
            status, ended = self._status(), self._ending.mark(not self.running)
        self._tell(status, ended)
        return status

    def _closed(self) -> dict[str, Any]:
        return {port: link.occupancy() if link.synced else None for port, link in self.by_port.items()}

    def _look(self) -> bool:
        closed = self._closed()
        with self._lock:
            if not self.running:
                return False
            port = self._watch.feed(closed, time.monotonic())
            if port is None:
                return True
            offer = self.probe.offer(port)
            self.message = " ".join(t for t in (offer.text, offer.wrong) if t)
            self.refused = offer.verdict != "bound" or offer.wrong is not None
            if self.probe.board is None:
                self._save()
            status, ended = self._status(), self._ending.mark(not self.running)
        self._tell(status, ended)
        return not ended

    def _save(self) -> None:
        unbound = self.probe.unbound()
        if unbound:
            names = ", ".join(self.probe.title(b) for b in unbound)
            self.message, self.refused = f"No grid answered for {names}: go back to it, or stop.", True
            return
        try:
            self.table.on_bound({board: self.by_port[port] for board, port in self.probe.bound.items()})
        except OSError as error:
            self.message, self.refused = f"Could not save the config: {error.strerror or error}.", True
            return
        self.state = "saved"
        wrong = " ".join(self.probe.wrong)
        self.message = (
            f"{wrong + ' ' if wrong else ''}Each board is read from the grid that answered for it now: "
            + "; ".join(f"{self.probe.title(b)} on {p}" for b, p in self.probe.bound.items())
            + "."
        )

    def _status(self) -> Status:
        probe = self.probe
        board = probe.board if self.running else None
        site = None if board is None else self.table.prefixes[board] + probe.marked(board).id
        return {
            "board": board or probe.boards[0],
            "probe": True,
            "state": self.state,
            "step": min(probe.index + 1, len(probe.boards)),
            "total": len(probe.boards),
            "site": site,
            "name": None if board is None else probe.marked(board).name,
            "text": probe.prompt() if self.running else self.message or "",
            "message": self.message,
            "refused": self.refused,
            "mapped": len(probe.bound),
            "unmapped": [],
            "grid": "up",
            "profile": "",
        }
