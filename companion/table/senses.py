"""Which senses the table has at this moment, and telling the players whenever one goes or comes back.

A loose USB cable or an unplugged camera must never stop a game: the observer stops trusting the lost sense at once,
the phones are told what that means for them, and the game goes on with what is left (the camera alone, the grid
alone, or moves declared on the phones).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Literal

from companion.rules import Event
from companion.table.observe import Observer
from companion.table.session import Session
from companion.table.store import CannotSave

State = Literal["up", "lost", "absent"]

_BY_PHONE = "Moves on the board are not seen until a sense is back: declare them on a phone meanwhile."
_LOST = {  # (the sense lost, what is left)
    ("grid", "camera alone"): "The board's grid has lost its link. The camera alone watches the board until it is "
    "back.",
    ("grid", "phones alone"): "The board's grid has lost its link. " + _BY_PHONE,
    ("camera", "grid alone"): "The camera has stopped. The grid still sees where pieces are; a move it cannot tell "
    "apart is asked on a phone.",
    ("camera", "phones alone"): "The camera has stopped. " + _BY_PHONE,
}
_BACK = {
    "grid": "The board's grid is back. The board is read again: make it match the game.",
    "camera": "The camera is back.",
}


class Senses:
    """Thread-safe: the reed link's thread and the camera's thread report here."""

    def __init__(self, session: Session, observer: Observer | None, grid: bool, camera: bool) -> None:
        self.session = session
        self.observer = observer
        self._state: dict[str, State] = {
            "grid": "up" if grid else "absent",
            "camera": "up" if camera else "absent",
        }
        self._lock = threading.Lock()
        self.on_change: Callable[[], None] = lambda: None  # after each change is announced (the page's status)

    def grid(self, up: bool) -> None:
        self._report("grid", up)

    def camera(self, up: bool) -> None:
        self._report("camera", up)

    def calibrated(self, sense: str, up: bool) -> None:
        """A new calibration of a sense (made from the phones) is in use; a sense left out for want of one referees
        from now on (`up`: whether it is connected now)."""
        with self._lock:
            first = self._state[sense] == "absent"
            if first:
                self._state[sense] = "up" if up else "lost"
        if first and self.observer is not None:
            (self.observer.grid_available if sense == "grid" else self.observer.camera_available)(up)
        mode = self.mode()
        what = {"grid": "The board's grid", "camera": "The camera"}[sense]
        text = f"{what} is calibrated{'' if first else ' again'}. Refereeing the board now: {mode}."
        self._note(Event(f"{sense}-calibrated", text, {"mode": mode}))

    def board_changed(self, grid: bool | None, camera: bool | None, grid_up: bool) -> None:
        """A game on another board: whether each sense (of those the table has: None for one it has not) is
        calibrated for it. Nothing is announced here: the table says it in the board's words."""
        with self._lock:
            for sense, learnt in (("grid", grid), ("camera", camera)):
                if learnt is None:
                    continue
                up = grid_up if sense == "grid" else self._state["camera"] != "lost"
                self._state[sense] = ("up" if up else "lost") if learnt else "absent"
        self.on_change()

    def _report(self, sense: str, up: bool) -> None:
        with self._lock:
            if self._state[sense] == "absent" or (self._state[sense] == "up") == up:
                return
            self._state[sense] = "up" if up else "lost"
        if self.observer is not None and sense == "grid":
            self.observer.grid_available(up)
        elif self.observer is not None:
            self.observer.camera_available(up)
        mode = self.mode()
        text = _BACK[sense] if up else _LOST[sense, mode]
        self._note(Event(f"{sense}-{'back' if up else 'lost'}", text, {"mode": mode}))

    def _note(self, event: Event) -> None:
        # Called from a sense's own thread: a log that cannot be saved (the phones are told of it) must not end it.
        with contextlib.suppress(CannotSave):
            self.session.note(event)
        self.on_change()

    def status(self) -> dict[str, str]:
        with self._lock:
            return {**self._state, "mode": self._mode()}

    def mode(self) -> str:
        """What referees the board now, in words: "grid and camera", "grid alone", "camera alone", "phones alone"."""
        with self._lock:
            return self._mode()

    def _mode(self) -> str:
        grid, camera = self._state["grid"] == "up", self._state["camera"] == "up"
        if grid and camera:
            return "grid and camera"
        if grid or camera:
            return "grid alone" if grid else "camera alone"
        return "phones alone"
