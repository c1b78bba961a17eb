"""Which senses the table has at this moment, and telling the players whenever one goes or comes back.

A loose USB cable or an unplugged camera must never stop a game: the observer stops trusting the lost sense at once,
the phones are told what that means for them, and the game goes on with what is left (the camera alone, the grid
alone, or moves declared on the phones).
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Literal

from companion.listeners import Listeners
from companion.rules import Event
from companion.table.observe import Observer
from companion.table.session import Session
from companion.table.store import CannotSave

State = Literal["up", "lost", "absent"]
Status = dict[str, Any]  # {"grid": State, "camera": State, "mode": words, and "why": {sense: words} if known}

_BY_PHONE = "Moves on the board are not seen until a sense is back: declare them on a phone meanwhile."
_LOST = {  # (the sense lost, what is left): what that means for the players
    ("grid", "camera alone"): "The camera alone watches the board until it is back.",
    ("grid", "phones alone"): _BY_PHONE,
    ("camera", "grid alone"): "The grid still sees where pieces are; a move it cannot tell apart is asked on a phone.",
    ("camera", "phones alone"): _BY_PHONE,
}
_GONE = {"grid": "The board's grid has lost its link", "camera": "The camera has stopped"}
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
        self._why: dict[str, str] = {}  # why a sense that is lost went, where the table knows
        self._unsaid: set[str] = set()  # senses out of step since the table started, whose loss the log was not told
        self._lock = threading.Lock()
        self.changes: Listeners[Status] = Listeners()  # the status after each change is announced (the page's)

    def grid(self, up: bool, why: str | None = None) -> None:
        self._report("grid", up, why)

    def camera(self, up: bool, why: str | None = None) -> None:
        """The camera delivers frames again, or has stopped (`why`, in the players' words, where it is known: a
        camera that stopped for another reason is announced again)."""
        self._report("camera", up, why)

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

    def board_changed(self, grid: bool | None, camera: bool | None, grid_up: bool, told: bool = True) -> None:
        """A game on another board: whether each sense (of those the table has: None for one it has not) is
        calibrated for it. Nothing is announced here: the table says it in the board's words. `told` False: the
        table is starting (its grid's links not open yet): a grid out of step now is no loss the log was told, so
        its coming into step is no news, and one that never answers is announced lost."""
        with self._lock:
            for sense, learnt in (("grid", grid), ("camera", camera)):
                if learnt is None:
                    continue
                up = grid_up if sense == "grid" else self._state["camera"] != "lost"
                self._state[sense] = ("up" if up else "lost") if learnt else "absent"
                if not told and learnt and not up:
                    self._unsaid.add(sense)
        self.changes.tell(self.status())

    def _report(self, sense: str, up: bool, why: str | None = None) -> None:
        with self._lock:
            state = self._state[sense]
            unsaid = sense in self._unsaid
            self._unsaid.discard(sense)
            again = state == "lost" and not up and why is not None and why != self._why.get(sense)
            if state == "absent" or ((state == "up") == up and not again and not unsaid):
                return
            self._state[sense] = "up" if up else "lost"
            if up or why is None:
                self._why.pop(sense, None)
            else:
                self._why[sense] = why
        if up and unsaid:  # in step at last as the table starts: the phones see it, the log has nothing to take back
            if self.observer is not None:
                (self.observer.grid_available if sense == "grid" else self.observer.camera_available)(True)
            self.changes.tell(self.status())
            return
        if self.observer is not None and sense == "grid" and not again:
            self.observer.grid_available(up)
        elif self.observer is not None and not again:
            self.observer.camera_available(up)
        mode = self.mode()
        gone = f"{_GONE[sense]}: {why}." if why else f"{_GONE[sense]}."
        text = _BACK[sense] if up else f"{gone} {_LOST[sense, mode]}"
        self._note(Event(f"{sense}-{'back' if up else 'lost'}", text, {"mode": mode, **({"why": why} if why else {})}))

    def _note(self, event: Event) -> None:
        # Called from a sense's own thread: a log that cannot be saved (the phones are told of it) must not end it.
        with contextlib.suppress(CannotSave):
            self.session.note(event)
        self.changes.tell(self.status())

    def status(self) -> Status:
        """Each sense's state ("up", "lost", "absent"), what referees the board now (`mode`) and, for a sense that
        is lost for a reason the table knows, why (`why`: sense -> words)."""
        with self._lock:
            status: Status = {**self._state, "mode": self._mode()}
            if self._why:
                status["why"] = dict(self._why)
            return status

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
