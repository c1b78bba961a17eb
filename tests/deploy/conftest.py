"""A fresh Debian 12 root for the installer's test: debootstrap's minbase with systemd (every real target has it),
cached as a tarball under ~/.cache/orrery-test, unpacked anew for each test, with the checkout mounted read-only at
/src, a wheelhouse at /wheels (pip then needs no internet) and a persistent apt archive so packages download once."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import time
import tomllib
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MIRROR = "http://deb.debian.org/debian"
SUITE = "bookworm"
INCLUDE = "systemd"
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "orrery-test"
CHROOT_ENV = ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root", "LANG=C.UTF-8",
              "DEBIAN_FRONTEND=noninteractive"]
# Paths whose contents the kernel, apt's caches or the test itself make: not part of what the installer changed.
# `companion serve`'s health endpoint: DebianRoot.health runs by itself once the installed companion has `serve`.
HEALTH_PATH = "/api/health"
VOLATILE = ("proc", "sys", "dev", "run", "tmp", "src", "wheels", "var/cache", "var/log", "var/lib/apt/lists")


def _run(argv: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(argv)} exited {result.returncode}:\n{result.stdout[-3000:]}"
                             f"\n{result.stderr[-3000:]}")
    return result


def base_tarball() -> Path:
    """debootstrap once per package list; later runs unpack the tarball."""
    key = hashlib.sha256(f"{SUITE} minbase {INCLUDE} {MIRROR} {os.uname().machine}".encode()).hexdigest()[:12]
    tarball = CACHE / f"debian12-{key}.tar"
    if tarball.exists():
        return tarball
    CACHE.mkdir(parents=True, exist_ok=True)
    work = CACHE / f"debootstrap-{key}"
    shutil.rmtree(work, ignore_errors=True)
    _run(["debootstrap", "--variant=minbase", f"--include={INCLUDE}", SUITE, str(work), MIRROR], timeout=900)
    if _mounted_under(work):  # debootstrap mounts /proc in the root while it works; never tar or delete through it
        raise AssertionError(f"debootstrap left {_mounted_under(work)} mounted")
    _run(["tar", "-C", str(work), "--one-file-system", "-cf", str(tarball.with_suffix(".partial")), "."])
    tarball.with_suffix(".partial").replace(tarball)
    shutil.rmtree(work)
    return tarball


def _mounted_under(path: Path) -> list[str]:
    mounts = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()]
    return [m for m in mounts if m == str(path) or m.startswith(f"{path}/")]


def wheelhouse() -> Path:
    """The companion's dependencies and build backend as wheels for this machine's Python (the root's is the same
    Debian 12 Python 3.11), downloaded once."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wanted = sorted({*project["build-system"]["requires"], "wheel", *project["project"]["dependencies"],
                     *project["project"]["optional-dependencies"]["pi"]})
    key = hashlib.sha256(" ".join(wanted).encode()).hexdigest()[:12]
    wheels = CACHE / f"wheels-{key}"
    if not (wheels / ".complete").exists():
        wheels.mkdir(parents=True, exist_ok=True)
        _run([sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:", "--dest", str(wheels),
              *wanted], timeout=900)
        (wheels / ".complete").write_text("\n".join(wanted) + "\n")
    return wheels


class DebianRoot:
    def __init__(self, path: Path) -> None:
        self.path = path

    def run(self, *argv: str, check: bool = True, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        command = ["chroot", str(self.path), "/usr/bin/env", "-i", *CHROOT_ENV, *argv]
        if check:
            return _run(command, timeout=timeout)
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout)

    def health(self, timeout: float = 30.0) -> dict:
        """Runs the installed service's command as its user in the root, on a free port and without a camera or grid,
        and returns the health endpoint's JSON."""
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        argv = ["chroot", "--userspec=orrery:orrery", str(self.path), "/usr/bin/env", "-i", "HOME=/var/lib/orrery",
                "/opt/orrery/bin/companion", "serve", "--host", "127.0.0.1", "--port", str(port), "--serial", "auto",
                "--camera", "none", "--db", "/var/lib/orrery/orrery.db"]
        server = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            deadline = time.monotonic() + timeout
            while True:
                url = f"http://127.0.0.1:{port}{HEALTH_PATH}"
                with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=2) as response:
                    assert response.status == 200
                    return json.loads(response.read())
                assert server.poll() is None, f"companion serve exited {server.returncode}: {server.stdout.read()}"
                assert time.monotonic() < deadline, f"no answer from {HEALTH_PATH} within {timeout:g} s"
                time.sleep(0.3)
        finally:
            server.terminate()
            server.wait(timeout=10)

    def manifest(self) -> dict[str, tuple]:
        """Every file, directory and link outside the volatile paths: type, mode, owner, size, mtime and content
        hash, so a rewrite with the same bytes counts as a change too. Users and groups are files (/etc/passwd)."""
        out: dict[str, tuple] = {}
        skip = {self.path / v for v in VOLATILE}
        for directory, dirs, files in os.walk(self.path):
            here = Path(directory)
            dirs[:] = [d for d in dirs if here / d not in skip]
            for name in dirs + files:
                path = here / name
                info = path.lstat()
                if stat.S_ISLNK(info.st_mode):
                    content = os.readlink(path)
                elif stat.S_ISREG(info.st_mode):
                    content = hashlib.sha256(path.read_bytes()).hexdigest()
                else:
                    content = ""
                mtime = 0 if stat.S_ISDIR(info.st_mode) else info.st_mtime_ns
                key = str(path.relative_to(self.path))
                out[key] = (stat.filemode(info.st_mode), info.st_uid, info.st_gid, info.st_size, mtime, content)
        return out


@pytest.fixture
def debian_root(tmp_path: Path) -> Iterator[DebianRoot]:
    """A new root in tmp_path/root, mounted for chroot; unmounted and deleted afterwards."""
    work = tmp_path
    tarball, wheels = base_tarball(), wheelhouse()
    archives = CACHE / "apt-archives"
    (archives / "partial").mkdir(parents=True, exist_ok=True)
    root = work / "root"
    root.mkdir()
    _run(["tar", "-C", str(root), "-xf", str(tarball)])
    shutil.copy("/etc/resolv.conf", root / "etc" / "resolv.conf")
    # Packages must not start services in a chroot (the usual image-building guard).
    policy = root / "usr" / "sbin" / "policy-rc.d"
    policy.write_text("#!/bin/sh\nexit 101\n")
    policy.chmod(0o755)
    mounts: list[Path] = []

    def mount(*argv: str) -> None:
        _run(["mount", *argv])
        mounts.append(Path(argv[-1]))

    try:
        mount("-t", "proc", "proc", str(root / "proc"))
        mount("--bind", "/dev", str(root / "dev"))
        for source, target in ((ROOT, "src"), (wheels, "wheels"), (archives, "var/cache/apt/archives")):
            (root / target).mkdir(parents=True, exist_ok=True)
            mount("--bind", str(source), str(root / target))
        # The checkout read-only: the installer must build elsewhere and leave the user's clone untouched.
        _run(["mount", "-o", "remount,bind,ro", str(root / "src")])
        yield DebianRoot(root)
    finally:
        for target in reversed(mounts):
            subprocess.run(["umount", "-l", str(target)], capture_output=True)
        if not _mounted_under(root):
            shutil.rmtree(root, ignore_errors=True)
