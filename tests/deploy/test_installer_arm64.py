"""The Pi's own path, emulated: deploy/install.sh and the service's command in an arm64 Debian 13 root run by
qemu-user, from the wheelhouse deploy/wheelhouse.py makes for a Pi (the offline recipe of the user guide), with the
Pi camera's stack as Raspberry Pi OS lays it out: picamera2 for the system's Python over Debian's libcamera and numpy
(Debian 13 carries python3-libcamera but not python3-picamera2, which only Raspberry Pi's own archive has, so
picamera2 and three packages Debian lacks come from PyPI into the system's Python; the fourth, pykms from
python3-kms++, is on neither, so there the installer's camera check must name it in one line, and where a root has
it, say that picamera2 imports).

Opt-in, never in CI's run: `pytest -m arm64_root tests/deploy/test_installer_arm64.py -s` prints its figures
(about 25 minutes on 2 cores; needs root, qemu-user-static and the network).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from companion import __version__

from .installed import INSTALL, installed, summary

pytestmark = pytest.mark.arm64_root
# The Pi camera's stack: what Debian 13 has of it, and from PyPI what it has not (PiDNG builds from its source).
CAMERA_DEBIAN = ("python3-libcamera", "python3-numpy", "python3-pil", "python3-av", "python3-prctl", "python3-piexif",
                 "python3-jsonschema", "python3-tqdm", "python3-libarchive-c", "python3-pip", "python3-dev",
                 "gcc")  # fmt: skip
CAMERA_PYPI = ("picamera2", "simplejpeg", "videodev2", "pidng")


def camera_stack(root) -> None:
    root.run("apt-get", "update", "-qq")
    root.run("apt-get", "install", "-y", "-qq", "--no-install-recommends", *CAMERA_DEBIAN, timeout=3600)
    # (pip trusts what this machine trusts: a proxy's authority, where the network has one)
    (root.path / "etc" / "host-ca.crt").write_bytes(Path("/etc/ssl/certs/ca-certificates.crt").read_bytes())
    root.run(
        "python3",
        "-m",
        "pip",
        "install",
        "--quiet",
        "--cert",
        "/etc/host-ca.crt",
        "--break-system-packages",
        "--no-deps",
        *CAMERA_PYPI,
        timeout=3600,
    )


def timed(figures: dict[str, float], name: str, root, *argv: str, **kwargs):
    started = time.monotonic()
    result = root.run(*argv, timeout=3600, **kwargs)
    figures[name] = time.monotonic() - started
    return result


def test_on_an_arm64_pi_under_emulation_it_installs_offline_serves_sees_the_camera_stack_and_reads_frames(roots):
    started = time.monotonic()
    root = roots.make("trixie/aarch64", then=camera_stack).result()
    figures = {"root with the camera stack": time.monotonic() - started}
    assert root.run("uname", "-m").stdout.strip() == "aarch64"

    first = timed(figures, "install, first run", root, *INSTALL)
    installed(root, first, within=600)
    camera = re.search(
        r"^The Pi camera: picamera2 \S+ imports in /usr/bin/python3 with numpy (\S+); no camera "
        r"connected yet$",
        first.stdout,
        re.MULTILINE,
    )
    if root.run("python3", "-c", "import pykms", check=False).returncode != 0:
        camera = re.search(
            r"^install.sh: the Pi camera will not work: picamera2 does not import in /usr/bin/python3: "
            r"it needs the module (pykms), which is missing .*$",
            first.stderr,
            re.MULTILINE,
        )
    assert camera, first.stdout + first.stderr
    venv_numpy = root.run("/opt/orrery/bin/python", "-c", "import numpy; print(numpy.__version__, numpy.__file__)")
    again = timed(figures, "install, second run", root, *INSTALL)
    assert summary(again) == "orrery: unchanged", again.stdout

    started = time.monotonic()
    health = root.health(timeout=600)
    figures["serve: start to the first health answer"] = time.monotonic() - started
    assert health.http["version"] == __version__ and health.https is not None

    for board in ("nano", "uno", "mega"):
        built = timed(
            figures,
            f"firmware build, {board}",
            root,
            "/opt/orrery/bin/companion",
            "firmware",
            "build",
            "--board",
            board,
            "--out",
            "/tmp/fw",
        )
        assert built.stdout.strip() == f"built /tmp/fw/{board}/reed_grid.hex"

    # The vision pipeline on a 1080p frame with a hand over the board, as numpy and OpenCV run on arm64: no warnings.
    timed(
        figures,
        "vision render, 1 scene",
        root,
        "/opt/orrery/bin/companion",
        "vision",
        "render",
        "--hand",
        "--out",
        "/tmp/scene",
    )
    detect = timed(
        figures,
        "vision detect, 1 frame (start included)",
        root,
        "/opt/orrery/bin/python",
        "-W",
        "error::RuntimeWarning",
        "-m",
        "companion",
        "vision",
        "detect",
        "--profile",
        "/tmp/scene/profile.json",
        "/tmp/scene/scene-1.png",
    )
    assert "pieces" in detect.stdout and detect.stderr == "", detect.stderr

    print(
        f"\narm64 (qemu-user), Debian 13, Python {root.run('python3', '-V').stdout.split()[1]}; "
        f"the camera stack: {camera[1]}; the companion's numpy {venv_numpy.stdout.split()[0]}"
    )
    print(camera[0])
    for name, seconds in figures.items():
        print(f"  {name}: {seconds:.1f} s")
