"""What the table's step-by-step guides (the grid's calibration walk-through, the guided setup) share: a thread that
looks at the sensors every few milliseconds while a guide runs, the hand-over of a guide's end to the table before
any phone hears of it, and the refusal of a request that does not fit the moment (the web answers it with 409)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any


class NotNow(Exception):
    """A request that is well formed but does not fit the table now: no grid to calibrate, no walk-through running,
    a walk-through already running."""


class Ticker:
    """Calls `look()` every `every` seconds on a thread of its own until `stop()` (or until `look` returns
    False). Started by the guide that owns it."""

    def __init__(self, look: Callable[[], bool], every: float, name: str) -> None:
        self._look = look
        self._every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> Ticker:
        self._thread.start()
        return self

    def stop(self, wait: bool = True) -> None:
        self._stop.set()
        if wait and self._thread is not threading.current_thread() and self._thread.is_alive():
            self._thread.join(timeout=2)

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            if not self._look():
                return


class Ending:
    """A guide's end reaches the table before anyone is told of it. The table holds its referee back while a guide
    runs and resumes it in the guide's `on_end`; were a phone told "saved" or "placed" first, its players would set
    a piece down on a table that does not referee yet. So the guide marks its end (`mark`, under its own lock, as
    its state changes), then `tell` hands it to the table and only then tells the phones (`on_change`); whoever asks
    for the guide's status meanwhile waits for the hand-over (`read`)."""

    def __init__(self, on_change: Callable[[dict[str, Any]], None], on_end: Callable[[], None]) -> None:
        self._on_change, self._on_end = on_change, on_end
        self._handed = threading.Event()
        self._handed.set()
        self._by: int | None = None  # the thread handing the end over (it never waits for itself)

    def mark(self, ended: bool) -> bool:
        """`ended`, marked as an end to hand over when it is true."""
        if ended:
            self._handed.clear()
            self._by = threading.get_ident()
        return ended

    def tell(self, status: dict[str, Any], ended: bool, ticker: Ticker | None) -> None:
        """A change to every phone; an end (marked) to the table first, the guide's thread stopped."""
        if not ended:
            self._on_change(status)
            return
        try:
            if ticker is not None:
                ticker.stop()
            self._on_end()
        finally:
            self._by = None
            self._handed.set()
            self._on_change(status)  # (the end happened: the phones hear it even should the table fail to take it)

    def read(self, lock: AbstractContextManager[Any], status: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """`status()` under the guide's `lock` once no end waits to be handed over (an end is marked under that lock,
        so none can be marked between the look and the read); the thread handing it over reads at once."""
        while True:
            if self._by != threading.get_ident():
                self._handed.wait()
            with lock:
                if self._handed.is_set() or self._by == threading.get_ident():
                    return status()
