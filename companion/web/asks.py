"""What one phone asks that another must agree to: taking back another seat's move (that seat's phone or the host
agrees), and a seat for another phone (the seat's phone agrees, or the host gives it at once). Every phone sees
what is asked; only the phones that may agree get the buttons. Kept in memory: a restart forgets them (asking
again is a tap)."""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass
from typing import Any


class AskRefused(Exception):
    """An answer that does not fit (no such question, or not this phone's to give); the message says why."""


@dataclass(frozen=True)
class Ask:
    id: int
    kind: str  # "undo": take back the last move; "give": the seat to the phone `to`
    seat: str  # the seat whose phone must agree
    by: str  # the phone that asked
    text: str  # what is asked, in players' words
    to: str | None = None  # give: the phone the seat goes to
    host_may: bool = False  # the host's phone may agree too
    moves: int = 0  # undo: the moves in force when asked (a move since makes the question void)
    keep: bool = True  # give: the phone `to` keeps its other seats (False: it asked to swap its seat for this one)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "seat": self.seat, "text": self.text, "host_may": self.host_may}


class Asks:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: dict[int, Ask] = {}
        self._ids = itertools.count(1)

    def ask(self, kind: str, seat: str, by: str, text: str, to: str | None = None, host_may: bool = False,
            moves: int = 0, keep: bool = True) -> Ask:  # fmt: skip
        """A new question; one of a kind per seat at a time (a new one replaces the old)."""
        with self._lock:
            for old in [a for a in self._open.values() if a.kind == kind and a.seat == seat]:
                del self._open[old.id]
            asked = Ask(next(self._ids), kind, seat, by, text, to, host_may, moves, keep)
            self._open[asked.id] = asked
            return asked

    def take(self, ask_id: int, seats: tuple[str, ...], host: bool, phone: str, yes: bool) -> Ask:
        """The question `ask_id`, closed, if the phone `phone` holding `seats` (the host's when `host`) may answer
        it, or withdraw it (the asker, saying no)."""
        with self._lock:
            asked = self._open.get(ask_id)
            if asked is None:
                raise AskRefused("ask: that question has been answered or withdrawn")
            withdrawn = not yes and phone == asked.by
            if not withdrawn and asked.seat not in seats and not (host and asked.host_may):
                raise AskRefused(f"ask: only {asked.seat.capitalize()}'s phone may answer that")
            del self._open[ask_id]
            return asked

    def grant(self, ask_id: int) -> Ask:
        """The host's word on a seat asked for: the question `ask_id`, closed, for the seat to go where it asked."""
        with self._lock:
            asked = self._open.get(ask_id)
            if asked is None or asked.kind != "give":
                raise AskRefused("ask: no phone is asking for a seat by that question (answered or withdrawn)")
            del self._open[ask_id]
            return asked

    def drop(self, kind: str, seat: str) -> None:
        """Questions of `kind` about `seat` that no longer fit (its seat changed phones)."""
        with self._lock:
            self._open = {i: a for i, a in self._open.items() if not (a.kind == kind and a.seat == seat)}

    def clear(self) -> None:
        with self._lock:
            self._open.clear()

    def listed(self) -> list[dict[str, Any]]:
        with self._lock:
            return [asked.to_json() for asked in self._open.values()]
