"""The Raspberry Pi camera, read through the system's picamera2 in a process of the system's own Python
(picamera_process.py says why and speaks the protocol). Every failure here is one line, a UserError: no camera, a
busy camera, a camera stack that does not import, a process that stops or falls silent.

A stack that does not import stays so until the system's packages change, so it is found out once per interpreter:
a table that keeps trying its camera does not start a Python every time to hear the same answer.
"""

from __future__ import annotations

import contextlib
import functools
import os
import selectors
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from companion.errors import UserError
from companion.sensing.camera import Frame

PROCESS = Path(__file__).with_name("picamera_process.py")
START_SECONDS = 30.0  # importing numpy and picamera2 and starting libcamera takes seconds on a Pi 3
FRAME_SECONDS = 10.0
LINE_BYTES = 4096  # the longest answer line accepted


def system_python() -> str:
    """The Python this environment was made from: the one apt's picamera2 is installed for."""
    return str(Path(sys.base_prefix) / "bin" / "python3")


def _start(python: str, *argv: str) -> subprocess.Popen[bytes]:
    try:
        return subprocess.Popen(
            [python, "-s", "-P", str(PROCESS), *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except OSError as error:
        raise UserError(f"the Pi camera: cannot run {python} ({error.strerror})") from None


class _Answers:
    """The process's standard output, read with a deadline (a camera that hangs must not hang the table)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        self._fd = process.stdout.fileno()
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._fd, selectors.EVENT_READ)
        self._buffer = bytearray()

    def _fill(self, deadline: float, what: str) -> None:
        left = deadline - time.monotonic()
        if left <= 0 or not self._selector.select(left):
            raise UserError(f"the Pi camera: its process gave no {what} in time (it may hang in libcamera)")
        chunk = os.read(self._fd, 1 << 20)
        if not chunk:
            raise EOFError
        self._buffer += chunk

    def line(self, deadline: float, what: str) -> str:
        while (end := self._buffer.find(b"\n")) < 0:
            if len(self._buffer) > LINE_BYTES:
                raise UserError("the Pi camera: its process answered with something other than its protocol")
            self._fill(deadline, what)
        line = bytes(self._buffer[:end]).decode("ascii", "replace")
        del self._buffer[: end + 1]
        return line

    def exactly(self, size: int, deadline: float) -> bytearray:
        while len(self._buffer) < size:
            self._fill(deadline, "frame")
        data = self._buffer[:size]
        del self._buffer[:size]
        return data

    def close(self) -> None:
        self._selector.close()


@functools.cache
def stack_check(python: str) -> tuple[bool, str]:
    """Whether picamera2 imports in `python`, and one line that says what was found or what is wrong."""
    process = _start(python, "--check")
    try:
        out, _ = process.communicate(timeout=START_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return False, f"the Pi camera: {python} did not answer within {START_SECONDS:g} s"
    kind, _, text = out.decode("ascii", "replace").partition("\n")[0].partition(" ")
    if kind == "ok":
        return True, text
    return False, text or f"the Pi camera: {python} exited {process.returncode} without a word"


def check_pi_camera(python: str | None = None) -> str:
    """One line: the Pi camera's stack imports, and how many cameras it sees; a UserError saying why not."""
    ok, text = stack_check(python or system_python())
    if not ok:
        raise UserError(text)
    return text


class PiCameraSource:
    """The Raspberry Pi camera through picamera2, at its sensor's full size unless told otherwise: gray frames (the
    luma plane, as the sticker decoding and the occlusion check read them; a settled change read in crops then costs
    no more than the crops) or, with `colour`, B, G, R (for pieces found by colour)."""

    def __init__(
        self, width: int | None = None, height: int | None = None, colour: bool = False, python: str | None = None
    ) -> None:
        python = python or system_python()
        ok, text = stack_check(python)
        if not ok:
            raise UserError(text)
        self._process = _start(python, str(width or 0), str(height or 0), "colour" if colour else "gray")
        self._failed = False
        self._answers = _Answers(self._process)
        try:
            ready = self._answer(time.monotonic() + START_SECONDS, "answer")
        except UserError:
            self._failed = True
            self.close()
            raise
        words = ready.split()
        asked = [str(width), str(height)] if width and height else words[1:]
        if len(words) != 3 or words[0] != "ready" or words[1:] != asked or not all(w.isdigit() for w in words[1:]):
            self.close()
            raise UserError(f"the Pi camera: its process answered {ready[:80]!r} instead of starting")
        self.size = (int(words[1]), int(words[2]))

    def _answer(self, deadline: float, what: str) -> str:
        """The next answer line; an error line, an exit or silence become a UserError."""
        try:
            line = self._answers.line(deadline, what)
        except EOFError:
            code = self._process.wait()
            raise UserError(f"the Pi camera: its process stopped (exit {code}) without a word") from None
        kind, _, text = line.partition(" ")
        if kind in ("error", "broken"):
            raise UserError(f"the Pi camera: {text}")
        return line

    @property
    def running(self) -> bool:
        """Whether the camera's process still runs (it holds the camera while it does)."""
        return self._process.poll() is None

    def read(self) -> Frame | None:
        try:
            return self._read()
        except UserError:
            self._failed = True  # closed at once then: a process that fell silent will not answer a goodbye
            raise

    def _read(self) -> Frame:
        assert self._process.stdin is not None
        deadline = time.monotonic() + FRAME_SECONDS
        with contextlib.suppress(BrokenPipeError):  # it has stopped: its last words say why
            self._process.stdin.write(b"frame\n")
            self._process.stdin.flush()
        header = self._answer(deadline, "frame").split()
        if len(header) != 4 or header[0] != "frame" or not all(word.isdigit() for word in header[1:]):
            raise UserError(f"the Pi camera: its process answered {' '.join(header)[:80]!r} instead of a frame")
        height, width, channels = (int(word) for word in header[1:])
        try:
            data = self._answers.exactly(height * width * channels, deadline)
        except EOFError:
            raise UserError("the Pi camera: its process stopped in the middle of a frame") from None
        shape = (height, width) if channels == 1 else (height, width, channels)
        return Frame(np.frombuffer(data, np.uint8).reshape(shape), time.time(), "pi camera")

    def close(self) -> None:
        if self._failed and self._process.poll() is None:
            self._process.kill()
        assert self._process.stdin is not None and self._process.stdout is not None
        with contextlib.suppress(BrokenPipeError):
            self._process.stdin.close()  # its signal to stop the camera and exit
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._answers.close()
        self._process.stdout.close()
