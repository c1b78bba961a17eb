"""The twin's camera as the table opens it: a frame source of what the hands have set out, drawn by the twin's camera
model (twin_camera.py over one board, twin_spread.py over several) and read by the table's own vision.

A camera hanging over the table: it sends a frame as soon as the scene under it changes (a motion-triggered camera)
and, while nothing moves, whenever the table asks for one (as it asks a phone on a stand for its still), at most
one a `period`. A frame is stamped when it is handed over; one whose scene changed while it was drawn is drawn again,
so no frame shows an older board than its stamp says. Unplugged, it sends nothing until plugged in again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

import numpy as np

from companion.boards import Board
from companion.rules.engine import Layout
from companion.sensing.camera import Frame
from companion.sensing.pieces import Registry

PERIOD = 0.2  # seconds between two frames of a scene that has not changed


class CameraModel(Protocol):
    """What the twin's cameras (TwinCamera, SpreadCamera) offer the frame source and the hands' bookkeeping."""

    board: Board
    registry: Registry
    pieces: frozenset[str] | None
    sites: frozenset[str]
    frames: int

    def render(self, layout: Layout) -> tuple[np.ndarray, frozenset[str]]: ...

    def touched(self, layout: Layout) -> None: ...

    def out_of_view(self, layout: Layout) -> frozenset[str]: ...


class RenderedFrames:
    """A FrameSource (sensing/camera.py) drawn by `camera` (None: a board it has no pieces for, a plain frame of
    `size`); `wanted`: whether the table wants a frame now."""

    def __init__(self, camera: CameraModel | None, size: tuple[int, int], wanted: Callable[[], bool] = lambda: True,
                 period: float = PERIOD) -> None:  # fmt: skip
        self.camera = camera
        self.size = size
        self.wanted = wanted
        self.period = period
        self.layout: Layout = {}
        self.version = 0  # the scene's, counted up at each change
        self.drawn = -1  # the version of the last frame handed over
        self.taken = -1  # the version of the last frame the table has read through (it came back for the next)
        self.sent = 0  # frames handed over
        self.read_through = 0  # ... and read through by the table
        self.plugged = True
        self._image: np.ndarray | None = None
        self._sent = float("-inf")
        self._closed = False
        self._lock = threading.Condition()

    def show(self, layout: Layout) -> int:
        """The hands have set `layout` out under the camera; returns the scene's version."""
        with self._lock:
            if dict(layout) != dict(self.layout) or self._image is None:
                self.layout = dict(layout)
                self.version += 1
                self._lock.notify_all()
            return self.version

    def use(self, camera: CameraModel | None) -> None:
        """Another board under the camera (a game on another board): drawn by `camera` from now on."""
        with self._lock:
            self.camera = camera
            self.version += 1
            self._lock.notify_all()

    def unplug(self) -> None:
        with self._lock:
            self.plugged = False

    def replug(self) -> None:
        with self._lock:
            self.plugged = True
            self._lock.notify_all()

    def read(self) -> Frame | None:
        with self._lock:
            self.taken, self.read_through = self.drawn, self.sent
            while not self._closed:
                if not self.plugged:
                    return None  # (the table says the camera has stopped, and tries again)
                changed = self.version != self.drawn
                if changed or (time.monotonic() - self._sent >= self.period and self.wanted()):
                    break
                self._lock.wait(0.02)
            if self._closed:
                return None
        while True:
            with self._lock:
                version, layout, camera, image = self.version, self.layout, self.camera, self._image
            if version != self.drawn or image is None:
                image = self._draw(camera, layout)
            with self._lock:
                if self.version == version:  # else the scene changed while it was drawn: draw it again
                    self._image, self.drawn, self._sent = image, version, time.monotonic()
                    self.sent += 1
                    return Frame(image, self._sent, "the twin's camera")

    def _draw(self, camera: CameraModel | None, layout: Layout) -> np.ndarray:
        if camera is None:
            return np.full((self.size[1], self.size[0], 3), 128, np.uint8)
        image, _ = camera.render(layout)
        camera.frames += 1
        return image

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._lock.notify_all()
