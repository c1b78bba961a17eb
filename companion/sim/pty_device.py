"""A serial device that is not a grid, on a pseudo-terminal: it sends a line every `period` seconds and keeps what it
hears, so a test can see whether the host wrote to it (a GPS receiver talking NMEA, a device that sends frame-like
lines but never answers the hello)."""

from __future__ import annotations

import os
import pty
import threading
import tty
from collections.abc import Callable


class PtyDevice:
    def __init__(self, line: Callable[[int], bytes], period: float = 0.1) -> None:
        """`line(n)` is the n-th line the device sends, with its line ending."""
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self.heard = b""
        self._line, self._period = line, period
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        os.set_blocking(self.master, False)
        n = 0
        while not self._stop.wait(self._period):
            try:
                os.write(self.master, self._line(n))
                self.heard += os.read(self.master, 4096)
            except BlockingIOError:
                pass
            except OSError:
                return
            n += 1

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        os.close(self.master)
        os.close(self.slave)
