"""The step before the guided setup when a new game is on a board the grid has not learnt: the grid cannot feel the
pieces being set out until it has been walked, so the phones lead with the walk-through, and the guided setup
follows once it is saved (web/table.py). It is told on the stream as the setup's first step (`setup`, state
"waiting"), so a phone that joins meanwhile sees the same step."""

from __future__ import annotations

from typing import Any

Status = dict[str, Any]


class GridFirst:
    """One new game's wait for the grid to learn its board of `sites` sites."""

    def __init__(self, sites: int) -> None:
        self.sites = sites
        self.state = "waiting"  # then "guided" (the setup guide took over) or "stopped"
        self.message: str | None = None

    @property
    def running(self) -> bool:
        return self.state == "waiting"

    def walk_ended(self, saved: bool) -> None:
        """The walk-through ended: saved, the guide takes over; else the step is offered again, saying so."""
        if saved:
            self.state = "guided"
        else:
            self.message = "The walk-through stopped before it was saved: the grid still cannot feel the pieces."

    def stop(self, message: str) -> None:
        self.state, self.message = "stopped", message

    def status(self) -> Status:
        """Shaped as the setup guide's status (companion/table/setup_guide.py), with no piece asked yet."""
        waiting = self.running
        text = (f"First, teach the grid your board: {self.sites} sites, a piece on each in turn." if waiting
                else self.message or "")  # fmt: skip
        return {
            "state": self.state,
            "placed": 0,
            "total": 0,
            "count": f"{self.sites} sites" if waiting else "",
            "piece": None,
            "site": None,
            "name": None,
            "text": text,
            "how": "walk" if waiting else None,
            "wrong": [],
            "message": self.message if waiting else None,
            "order": [],
            "sites": self.sites,
        }
