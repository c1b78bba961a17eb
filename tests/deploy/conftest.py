"""A fresh Debian 12 root for the installer's test: debootstrap's minbase with systemd (every real target has it),
cached as a tarball under ~/.cache/orrery-test, unpacked anew for each test, with the checkout mounted read-only at
/src, a wheelhouse at /wheels (pip then needs no internet) and a persistent apt archive so packages download once.
The privileged steps (debootstrap, tar, mount, chroot) run through `sudo -n` when the tests do not run as root."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import ssl
import subprocess
import sys
import time
import tomllib
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MIRROR = "http://deb.debian.org/debian"
SUITE = "bookworm"
INCLUDE = "systemd"
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "orrery-test"
SUDO = [] if os.geteuid() == 0 else ["sudo", "-n"]
CHROOT_ENV = ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root", "LANG=C.UTF-8",
              "DEBIAN_FRONTEND=noninteractive"]
# `companion serve`'s health endpoint (docs/web.md), and where the installer keeps the table's CA.
HEALTH_PATH = "/healthz"
TLS_DIR = "/var/lib/orrery/tls"
# Paths whose contents the kernel, apt's caches or the test itself make: not part of what the installer changed.
VOLATILE = ("proc", "sys", "dev", "run", "tmp", "src", "wheels", "var/cache", "var/log", "var/lib/apt/lists")


MANIFEST = r"""
import hashlib, json, os, stat, sys
skip = {"/" + v for v in sys.argv[1:]}
out = {}
for directory, dirs, files in os.walk("/"):
    dirs[:] = [d for d in dirs if os.path.join(directory, d) not in skip]
    for name in dirs + files:
        path = os.path.join(directory, name)
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            content = os.readlink(path)
        elif stat.S_ISREG(info.st_mode):
            with open(path, "rb") as f:
                content = hashlib.file_digest(f, "sha256").hexdigest()
        else:
            content = ""
        mtime = 0 if stat.S_ISDIR(info.st_mode) else info.st_mtime_ns
        out[path] = [stat.filemode(info.st_mode), info.st_uid, info.st_gid, info.st_size, mtime, content]
json.dump(out, sys.stdout)
"""


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
    _run([*SUDO, "rm", "-rf", "--one-file-system", str(work)])
    _run([*SUDO, "debootstrap", "--variant=minbase", f"--include={INCLUDE}", SUITE, str(work), MIRROR], timeout=900)
    if _mounted_under(work):  # debootstrap mounts /proc in the root while it works; never tar or delete through it
        raise AssertionError(f"debootstrap left {_mounted_under(work)} mounted")
    _run([*SUDO, "tar", "-C", str(work), "--one-file-system", "-cf", str(tarball.with_suffix(".partial")), "."])
    _run([*SUDO, "mv", str(tarball.with_suffix(".partial")), str(tarball)])
    _run([*SUDO, "rm", "-rf", "--one-file-system", str(work)])
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


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Health:
    http: dict
    https: dict | None  # /healthz over https, verified against the table's CA; None without a CA in the root


class DebianRoot:
    def __init__(self, path: Path) -> None:
        self.path = path

    def run(self, *argv: str, check: bool = True, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        command = [*SUDO, "chroot", str(self.path), "/usr/bin/env", "-i", *CHROOT_ENV, *argv]
        if check:
            return _run(command, timeout=timeout)
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout)

    def health(self, timeout: float = 30.0) -> Health:
        """Runs the installed service's command as its user in the root, on free ports and without a camera or grid,
        with https from the installer's CA when there is one, and returns the health endpoint's JSON by both."""
        port, tls_port = _free_port(), _free_port()
        ca = self.run("cat", f"{TLS_DIR}/ca.crt", check=False).stdout or None
        tls = ["--tls-dir", TLS_DIR, "--tls-port", str(tls_port)] if ca else []
        argv = [*SUDO, "chroot", "--userspec=orrery:orrery", str(self.path), "/usr/bin/env", "-i",
                "HOME=/var/lib/orrery", "/opt/orrery/bin/companion", "serve", "--host", "127.0.0.1",
                "--port", str(port), "--serial", "auto", "--camera", "none", "--db", "/var/lib/orrery/orrery.db",
                *tls]
        server = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            deadline = time.monotonic() + timeout
            while True:
                url = f"http://127.0.0.1:{port}{HEALTH_PATH}"
                with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=2) as response:
                    assert response.status == 200
                    http = json.loads(response.read())
                    break
                assert server.poll() is None, f"companion serve exited {server.returncode}: {server.stdout.read()}"
                assert time.monotonic() < deadline, f"no answer from {HEALTH_PATH} within {timeout:g} s"
                time.sleep(0.3)
            if not ca:
                return Health(http, None)
            # The certificate the server presents must chain to the CA the installer made, for a name phones use.
            context = ssl.create_default_context(cadata=ca)
            with urllib.request.urlopen(f"https://localhost:{tls_port}{HEALTH_PATH}", timeout=5,
                                        context=context) as response:
                return Health(http, json.loads(response.read()))
        finally:
            server.terminate()
            server.wait(timeout=10)

    def manifest(self) -> dict[str, list]:
        """Every file, directory and link outside the volatile paths: type, mode, owner, size, mtime and content
        hash, so a rewrite with the same bytes counts as a change too. Users and groups are files (/etc/passwd).
        Made by the root's own Python, as root, so that private files (/etc/shadow) are read too."""
        return json.loads(self.run("python3", "-c", MANIFEST, *VOLATILE).stdout)


@pytest.fixture
def debian_root(tmp_path: Path) -> Iterator[DebianRoot]:
    """A new root in tmp_path/root, mounted for chroot; unmounted and deleted afterwards."""
    work = tmp_path
    tarball, wheels = base_tarball(), wheelhouse()
    archives = CACHE / "apt-archives"
    (archives / "partial").mkdir(parents=True, exist_ok=True)
    root = work / "root"
    root.mkdir()
    _run([*SUDO, "tar", "-C", str(root), "-xf", str(tarball)])
    _run([*SUDO, "cp", "/etc/resolv.conf", str(root / "etc" / "resolv.conf")])
    # Packages must not start services in a chroot (the usual image-building guard).
    policy = work / "policy-rc.d"
    policy.write_text("#!/bin/sh\nexit 101\n")
    _run([*SUDO, "install", "-m", "755", str(policy), str(root / "usr" / "sbin" / "policy-rc.d")])
    mounts: list[Path] = []

    def mount(*argv: str) -> None:
        _run([*SUDO, "mount", *argv])
        mounts.append(Path(argv[-1]))

    try:
        mount("-t", "proc", "proc", str(root / "proc"))
        mount("--bind", "/dev", str(root / "dev"))
        for source, target in ((ROOT, "src"), (wheels, "wheels"), (archives, "var/cache/apt/archives")):
            _run([*SUDO, "mkdir", "-p", str(root / target)])
            mount("--bind", str(source), str(root / target))
        # The checkout read-only: the installer must build elsewhere and leave the user's clone untouched.
        _run([*SUDO, "mount", "-o", "remount,bind,ro", str(root / "src")])
        yield DebianRoot(root)
    finally:
        for target in reversed(mounts):
            subprocess.run([*SUDO, "umount", "-l", str(target)], capture_output=True)
        if not _mounted_under(root):
            subprocess.run([*SUDO, "rm", "-rf", "--one-file-system", str(root)], capture_output=True)
