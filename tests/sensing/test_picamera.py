"""The Pi camera read through a process of the system's Python (companion/sensing/picamera_process.py), here with a
stand-in for picamera2 (tests/sensing/fake_picamera2) in that process: frames arrive whole, and every failure a Pi
gives (no camera, a busy one, a stack that does not import beside its numpy, a camera that stops or hangs) is one
line, never a traceback, with the companion's own numpy untouched."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from companion.errors import UserError
from companion.sensing import picamera
from companion.sensing.picamera import PiCameraSource, stack_check

FAKE = Path(__file__).with_name("fake_picamera2")


@pytest.fixture
def pi(monkeypatch, tmp_path):
    """Set the stand-in's behaviour; returns the file it logs each import to."""
    monkeypatch.setenv("PYTHONPATH", str(FAKE))
    monkeypatch.setenv("FAKE_PICAMERA2_LOG", str(tmp_path / "imports.log"))
    stack_check.cache_clear()
    yield lambda mode="": monkeypatch.setenv("FAKE_PICAMERA2", mode)
    stack_check.cache_clear()


def test_frames_arrive_whole_in_order_at_the_asked_size(pi):
    pi("chatty")  # a library printing to standard output must not break the frames
    source = PiCameraSource(320, 240, colour=True, python=sys.executable)
    try:
        images = [source.read().image for _ in range(3)]
    finally:
        source.close()
    for count, image in enumerate(images):
        assert image.shape == (240, 320, 3) and image.dtype == np.uint8
        assert image[0, 0, 2] == count
        assert (image[5, :, 0] == np.arange(320) % 256).all() and (image[:, 7, 1] == np.arange(240)).all()
    assert not source.running  # closing our end stops the camera and the process


def test_by_default_it_reads_the_luma_plane_at_the_sensors_full_size(pi):
    pi()
    source = PiCameraSource(python=sys.executable)
    try:
        assert source.size == (4608, 2592)
        images = [source.read().image for _ in range(2)]
    finally:
        source.close()
    for count, image in enumerate(images):
        assert image.shape == (2592, 4608) and image.dtype == np.uint8  # the chroma planes and row padding cut off
        assert image[0, 0] == count and (image[5, 1:300] == np.arange(1, 300) % 256).all()


@pytest.mark.parametrize(("mode", "says"), [
    ("numpy-mismatch", "picamera2 does not import in {python} (ValueError: numpy.dtype size changed, may indicate "
                       "binary incompatibility. Expected 96 from C header, got 88 from PyObject): the system's "
                       "camera packages do not fit its numpy"),
    ("no-libcamera", "picamera2 does not import in {python}: it needs the module libcamera, which is missing"),
    ("no-camera", "the Pi camera: no camera is connected (check the ribbon cable;"),
    ("busy", "the Pi camera: the Pi camera did not start (RuntimeError: Failed to acquire camera: Device or "
             "resource busy; is another program using it?)"),
])  # fmt: skip
def test_a_camera_that_cannot_start_is_one_line(pi, mode, says):
    pi(mode)
    with pytest.raises(UserError) as error:
        PiCameraSource(python=sys.executable)
    assert str(error.value).startswith(says.format(python=sys.executable)), error.value
    assert "\n" not in str(error.value)


def test_a_stack_that_does_not_import_is_asked_once(pi, tmp_path):
    pi("numpy-mismatch")
    for _ in range(3):  # a table trying its camera again and again
        with pytest.raises(UserError, match=r"numpy\.dtype size changed"):
            PiCameraSource(python=sys.executable)
    assert (tmp_path / "imports.log").read_text() == "imported\n"


def test_without_picamera2_it_says_what_to_install(pi, monkeypatch):
    monkeypatch.delenv("PYTHONPATH")
    with pytest.raises(UserError) as error:
        PiCameraSource(python=sys.executable)
    assert str(error.value) == (
        f"picamera2 is not installed for {sys.executable}: on Raspberry Pi OS `sudo apt "
        "install python3-picamera2`, then `sudo systemctl restart orrery`"
    )


@pytest.mark.parametrize(("mode", "says"), [
    ("stops", "the Pi camera: the Pi camera stopped (RuntimeError: Camera frontend has timed out!)"),
    ("hangs", "the Pi camera: its process gave no frame in time (it may hang in libcamera)"),
])  # fmt: skip
def test_a_camera_that_fails_while_reading_is_one_line(pi, monkeypatch, mode, says):
    pi(mode)
    monkeypatch.setattr(picamera, "FRAME_SECONDS", 2.0)
    source = PiCameraSource(64, 48, python=sys.executable)
    try:
        assert source.read() is not None and source.read() is not None
        with pytest.raises(UserError) as error:
            source.read()
        assert str(error.value) == says
    finally:
        source.close()
    assert not source.running


def test_camera_check_says_in_one_line_what_it_found_or_what_is_wrong(pi):
    def check(mode: str) -> subprocess.CompletedProcess[str]:
        pi(mode)
        return subprocess.run(
            [sys.executable, "-m", "companion", "camera", "check", "picamera", "--python", sys.executable],
            capture_output=True,
            text=True,
            timeout=60,
        )

    ready = check("")
    assert ready.returncode == 0, ready.stderr
    assert (
        ready.stdout == f"picamera2 imports in {sys.executable} with numpy {np.__version__}; 1 camera "
        "connected (imx708)\n"
    )
    broken = check("numpy-mismatch")
    assert broken.returncode == 2 and broken.stdout == ""
    assert broken.stderr.startswith(f"companion: picamera2 does not import in {sys.executable} (ValueError: ")
    assert broken.stderr.count("\n") == 1
    assert check("no-camera").stdout.endswith("; no camera connected yet\n")
