"""Frames another device sends: a spare phone on a stand as the table's camera (the camera page, companion/web).

The phone sends a still at its camera's full resolution when the table asks for one (the grid has settled on a
change the camera has not read yet) and a small preview now and then otherwise, for the calibration view. The
table's camera thread reads the stills as it reads any camera's frames; a still is asked for again only once the
last one has been read.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np

from companion.sensing.camera import Frame

QUIET_SECONDS = 6.0  # nothing at all from the phone for this long: it is gone (asleep, out of battery, closed)


class PushedFrames:
    """A frame source fed by `push` (the web server's threads) and read by the table's camera thread."""

    def __init__(self, still_wanted: Callable[[], bool] = lambda: True, quiet: float = QUIET_SECONDS) -> None:
        self._still_wanted = still_wanted
        self._quiet = quiet
        self._lock = threading.Condition()
        self._still: Frame | None = None
        self._awaiting_read = False  # a still was sent and the camera thread has not taken it yet
        self._heard = time.monotonic()  # a phone just asked for is given a while to turn up
        self._closed = False
        self.preview: np.ndarray | None = None  # the latest small frame, for a person to look at
        self.latest: np.ndarray | None = None  # the latest still

    def push(self, image: np.ndarray, still: bool) -> None:
        with self._lock:
            self._heard = time.monotonic()
            if still:
                self._still = Frame(image, time.time(), "phone camera")
                self.latest = image
                self._awaiting_read = True
            else:
                self.preview = image
            self._lock.notify_all()

    def wants_still(self) -> bool:
        """Whether the phone should send a full-resolution still now."""
        with self._lock:
            busy = self._awaiting_read
        return not busy and self._still_wanted()

    def read(self) -> Frame | None:
        """The next still; None once the phone has said nothing for a while (or the source is closed). Previews
        keep it waiting: the phone is there, the board is just not settled."""
        with self._lock:
            if self._still is None:
                self._awaiting_read = False  # the last still has been read through: the next may come
            while self._still is None and not self._closed:
                if time.monotonic() - self._heard > self._quiet:
                    self._lock.wait(0.5)
                    if self._still is None:
                        return None
                self._lock.wait(0.5)
            frame, self._still = self._still, None
            return frame

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._lock.notify_all()
