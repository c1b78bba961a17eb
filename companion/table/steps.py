"""What the table's step-by-step guides (the grid's calibration walk-through, the guided setup) share: a thread that
looks at the sensors every few milliseconds while a guide runs, and the refusal of a request that does not fit the
moment (the web answers it with 409)."""

from __future__ import annotations

import threading
from collections.abc import Callable


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
