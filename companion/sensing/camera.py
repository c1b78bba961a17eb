"""Frame sources behind one interface: a USB webcam (OpenCV), the Pi camera (picamera2), image files, the renderer.

On a Raspberry Pi, picamera2 comes from apt (python3-picamera2) and is read by the system's own Python in a process of
its own (picamera.py), never imported here: its camera stack is built against the system's numpy, not ours.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from companion.errors import UserError
from companion.sensing.vision_crops import Cropped

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


@dataclass(frozen=True)
class Frame:
    image: np.ndarray  # BGR uint8, or gray uint8 (a Pi camera's luma plane)
    time: float  # seconds (wall clock for cameras, file time for files, scene time for the renderer)
    source: str
    cropped: Cropped | None = None  # the image holds only the crops the table asked a phone for (vision_crops.py)
    # Monotonic seconds before which the picture cannot have been taken, where the source knows (a phone's still is
    # taken after the table asked for it); None: only its arrival is known.
    taken: float | None = None


class FrameSource(Protocol):
    def read(self) -> Frame | None:
        """The next frame, or None when the source has no more."""

    def close(self) -> None: ...


def frames(source: FrameSource) -> Iterator[Frame]:
    try:
        while (frame := source.read()) is not None:
            yield frame
    finally:
        source.close()


class VideoCaptureSource:
    """A USB webcam (or any device or stream OpenCV's VideoCapture opens)."""

    def __init__(self, device: int | str = 0, width: int | None = None, height: int | None = None) -> None:
        self._capture = cv2.VideoCapture(device)
        if not self._capture.isOpened():
            raise UserError(f"camera {device!r}: cannot open it (is it plugged in, or used by another program?)")
        if width and height:
            self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self._name = f"camera {device}"

    def read(self) -> Frame | None:
        ok, image = self._capture.read()
        return Frame(image, time.time(), self._name) if ok else None

    def close(self) -> None:
        self._capture.release()


class ImageSource:
    """An image file, or every image in a folder (sorted by name); the frame time is the file's mtime."""

    def __init__(self, path: str | Path) -> None:
        path = Path(path)
        if path.is_dir():
            self._paths = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if not self._paths:
                raise UserError(f"{path}: the folder holds no images")
        elif path.exists():
            self._paths = [path]
        else:
            raise UserError(f"{path}: no such image or folder")
        self._next = 0

    def read(self) -> Frame | None:
        if self._next >= len(self._paths):
            return None
        path = self._paths[self._next]
        self._next += 1
        return Frame(read_image(path), path.stat().st_mtime, str(path))

    def close(self) -> None:
        self._next = len(self._paths)


class RenderedSource:
    """The twin's camera: frames rendered from whatever the twin says is on the table now."""

    def __init__(self, render: Callable[[float], np.ndarray], period: float = 0.5, count: int | None = None):
        self._render = render
        self._period = period
        self._count = count
        self._index = 0

    def read(self) -> Frame | None:
        if self._count is not None and self._index >= self._count:
            return None
        t = self._index * self._period
        self._index += 1
        return Frame(self._render(t), t, "rendered camera")

    def close(self) -> None:
        self._count = self._index


def read_image(path: str | Path) -> np.ndarray:
    """A BGR image from a file, or one clear line saying why not."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{path}: no such image")
    data = np.fromfile(path, np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise UserError(f"{path}: not an image OpenCV can read")
    return image


def open_source(spec: str) -> FrameSource:
    """'pi' (gray frames at the sensor's full size), 'pi:colour', 'usb:N' (or a bare device number), or a path to an
    image or a folder of images."""
    if spec in ("pi", "pi:colour"):
        from companion.sensing.picamera import PiCameraSource

        return PiCameraSource(colour=spec == "pi:colour")
    if spec.startswith("usb:"):
        return VideoCaptureSource(int(spec[4:]))
    if spec.isdigit():
        return VideoCaptureSource(int(spec))
    return ImageSource(spec)
