"""Fresh Debian roots for the installer's tests: debootstrap's minbase with systemd (every real target has it) of
Debian 13 (trixie) or 12 (bookworm), for this machine or, under qemu-user, for a Pi's arm64; each cached as a tarball
under ~/.cache/orrery-test and unpacked anew for each test, with the checkout mounted read-only at /src, the
wheelhouse deploy/wheelhouse.py makes at /wheels (one folder for both releases; pip asks no index) and an apt archive
shared by every root, so that packages download once.
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
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.register_assert_rewrite("tests.deploy.installed")  # its checks report as a test's own do

ROOT = Path(__file__).resolve().parents[2]
MIRROR = "http://deb.debian.org/debian"
RELEASES = {"trixie": 13, "bookworm": 12}
INCLUDE = "systemd"
# Debian's names for machines, and the names Python and pip give them.
MACHINES = {"x86_64": "amd64", "aarch64": "arm64"}
QEMU_BINFMT = Path("/usr/lib/binfmt.d/qemu-aarch64.conf")  # from Debian's qemu-user-static
BINFMT = Path("/proc/sys/fs/binfmt_misc")
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "orrery-test"
SUDO = [] if os.geteuid() == 0 else ["sudo", "-n"]
CHROOT_ENV = [
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME=/root",
    "LANG=C.UTF-8",
    "DEBIAN_FRONTEND=noninteractive",
]
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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The arm64 root runs only when asked for by its mark (-m arm64_root): it takes most of half an hour."""
    if "arm64_root" in (config.getoption("markexpr") or ""):
        return
    # Deselected, not skipped: the default run has nothing skipped (`pytest -m arm64_root ... -s` runs it).
    chosen = [item for item in items if item.get_closest_marker("arm64_root") is None]
    if len(chosen) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if item not in chosen])
        items[:] = chosen


def _run(argv: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise AssertionError(
            f"{' '.join(argv)} exited {result.returncode}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        )
    return result


def foreign_machine_ready(machine: str) -> str | None:
    """None when this machine runs `machine`'s programs (its own, or arm64 through qemu-user's binfmt entry, which
    is registered here when root may), else the reason why not."""
    if machine == os.uname().machine:
        return None
    if machine != "aarch64":
        return f"no way to run {machine} programs here"
    entry = BINFMT / "qemu-aarch64"
    if not entry.exists() and QEMU_BINFMT.exists() and os.geteuid() == 0:
        if not (BINFMT / "register").exists():
            subprocess.run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(BINFMT)], capture_output=True)
        if (BINFMT / "register").exists():
            with contextlib.suppress(OSError):  # (registered meanwhile by another run)
                (BINFMT / "register").write_text(QEMU_BINFMT.read_text().strip())
    if not entry.exists():
        return "arm64 programs need qemu-user-static and its binfmt_misc entry (apt install qemu-user-static)"
    if "F" not in next((line for line in entry.read_text().splitlines() if line.startswith("flags:")), ""):
        return "qemu-aarch64's binfmt_misc entry must have the F flag, so that it runs inside a chroot"
    return None


def base_tarball(suite: str, machine: str) -> Path:
    """debootstrap once per release, machine and package list; later runs unpack the tarball."""
    key = hashlib.sha256(f"{suite} minbase {INCLUDE} {MIRROR} {machine}".encode()).hexdigest()[:12]
    tarball = CACHE / f"debian{RELEASES[suite]}-{MACHINES[machine]}-{key}.tar"
    if tarball.exists():
        return tarball
    CACHE.mkdir(parents=True, exist_ok=True)
    work = CACHE / f"debootstrap-{key}"
    for mounted in _mounted_under(work):  # left by a debootstrap that was stopped half-way
        _run([*SUDO, "umount", "-l", mounted])
    _run([*SUDO, "rm", "-rf", "--one-file-system", str(work)])
    _run(
        [
            *SUDO,
            "debootstrap",
            f"--arch={MACHINES[machine]}",
            "--variant=minbase",
            f"--include={INCLUDE}",
            suite,
            str(work),
            MIRROR,
        ],
        timeout=1800 if machine == os.uname().machine else 7200,
    )  # (emulated: slow)
    if _mounted_under(work):  # debootstrap mounts /proc in the root while it works; never tar or delete through it
        raise AssertionError(f"debootstrap left {_mounted_under(work)} mounted")
    _run([*SUDO, "tar", "-C", str(work), "--one-file-system", "-cf", str(tarball.with_suffix(".partial")), "."])
    _run([*SUDO, "mv", str(tarball.with_suffix(".partial")), str(tarball)])
    _run([*SUDO, "rm", "-rf", "--one-file-system", str(work)])
    return tarball


def _mounted_under(path: Path) -> list[str]:
    mounts = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()]
    return [m for m in mounts if m == str(path) or m.startswith(f"{path}/")]


_WHEELHOUSE = threading.Lock()  # roots made side by side share one wheelhouse


def wheelhouse(machine: str) -> Path:
    """The wheelhouse deploy/wheelhouse.py makes for `machine`, for every release, made again when pyproject.toml or
    the script changes (a folder for each: a run never reads a half-made one)."""
    script = ROOT / "deploy" / "wheelhouse.py"
    key = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + script.read_bytes() + machine.encode()).hexdigest()
    wheels = CACHE / f"wheels-{MACHINES[machine]}-{key[:12]}"
    with _WHEELHOUSE:
        if not (wheels / ".complete").exists():
            made = _run([sys.executable, str(script), str(wheels), "--arch", machine], timeout=900)
            (wheels / ".complete").write_text(made.stdout)
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
    def __init__(self, path: Path, suite: str, machine: str) -> None:
        self.path = path
        self.suite = suite
        self.machine = machine

    def run(
        self, *argv: str, check: bool = True, timeout: float = 600, network: bool = True, user: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        """A command in the root, as root or as `user`; without a network at all when network is False."""
        isolate = [] if network else ["unshare", "--net"]
        who = [f"--userspec={user}:{user}"] if user else []
        home = [f"HOME=/home/{user}"] if user else []
        command = [*SUDO, *isolate, "chroot", *who, str(self.path), "/usr/bin/env", "-i", *CHROOT_ENV, *home, *argv]
        if check:
            return _run(command, timeout=timeout)
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout)

    def health(self, timeout: float = 30.0) -> Health:
        """Runs the installed service's command as its user in the root, on free ports and without a camera or grid,
        with https from the installer's CA when there is one, and returns the health endpoint's JSON by both."""
        port, tls_port = _free_port(), _free_port()
        ca = self.run("cat", f"{TLS_DIR}/ca.crt", check=False).stdout or None
        tls = ["--tls-dir", TLS_DIR, "--tls-port", str(tls_port)] if ca else []
        argv = [
            *SUDO,
            "chroot",
            "--userspec=orrery:orrery",
            str(self.path),
            "/usr/bin/env",
            "-i",
            "HOME=/var/lib/orrery",
            "/opt/orrery/bin/companion",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--serial",
            "auto",
            "--camera",
            "none",
            "--db",
            "/var/lib/orrery/orrery.db",
            *tls,
        ]
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
            with urllib.request.urlopen(
                f"https://localhost:{tls_port}{HEALTH_PATH}", timeout=5, context=context
            ) as response:
                return Health(http, json.loads(response.read()))
        finally:
            server.terminate()
            server.wait(timeout=10)

    def manifest(self) -> dict[str, list]:
        """Every file, directory and link outside the volatile paths: type, mode, owner, size, mtime and content
        hash, so a rewrite with the same bytes counts as a change too. Users and groups are files (/etc/passwd).
        Made by the root's own Python, as root, so that private files (/etc/shadow) are read too."""
        return json.loads(self.run("python3", "-c", MANIFEST, *VOLATILE).stdout)


class Roots:
    """Debian roots made side by side in threads, so that their waits on the network and the disk overlap (two
    debootstraps, two apt runs), each unmounted and deleted at the end, also side by side."""

    def __init__(self, work: Path) -> None:
        self._work = work
        self._pool = ThreadPoolExecutor(max_workers=4)
        self._made: list[tuple[Path, list[Path]]] = []

    def make(self, release: str, then: Callable[[DebianRoot], None] | None = None) -> Future[DebianRoot]:
        """A root of "RELEASE" ("trixie", "bookworm") for this machine, or "RELEASE/MACHINE" for another machine
        ("trixie/aarch64"); `then` runs on it in the same thread (to install what a test takes for granted).
        Its result raises pytest's skip where the machine's programs cannot run here."""
        suite, _, machine = release.partition("/")
        return self._pool.submit(self._make, suite, machine or os.uname().machine, then)

    def _make(self, suite: str, machine: str, then: Callable[[DebianRoot], None] | None) -> DebianRoot:
        if why := foreign_machine_ready(machine):
            pytest.skip(why)
        tarball, wheels = base_tarball(suite, machine), wheelhouse(machine)
        archives = CACHE / f"apt-archives-{suite}-{MACHINES[machine]}"  # one each: two apt runs may overlap
        (archives / "partial").mkdir(parents=True, exist_ok=True)
        root = self._work / f"{suite}-{machine}"
        root.mkdir()
        mounts: list[Path] = []
        self._made.append((root, mounts))
        _run([*SUDO, "tar", "-C", str(root), "-xf", str(tarball)])
        _run([*SUDO, "cp", "/etc/resolv.conf", str(root / "etc" / "resolv.conf")])
        # Packages must not start services in a chroot (the usual image-building guard).
        policy = self._work / f"{suite}-{machine}.policy-rc.d"
        policy.write_text("#!/bin/sh\nexit 101\n")
        _run([*SUDO, "install", "-m", "755", str(policy), str(root / "usr" / "sbin" / "policy-rc.d")])
        # dpkg without fsync, as image builders run it: a root thrown away after the test needs no crash safety.
        unsafe = self._work / f"{suite}-{machine}.unsafe-io"
        unsafe.write_text("force-unsafe-io\n")
        _run([*SUDO, "install", "-m", "644", str(unsafe), str(root / "etc" / "dpkg" / "dpkg.cfg.d" / "unsafe-io")])

        def mount(*argv: str) -> None:
            _run([*SUDO, "mount", *argv])
            mounts.append(Path(argv[-1]))

        mount("-t", "proc", "proc", str(root / "proc"))
        mount("--bind", "/dev", str(root / "dev"))
        for source, target in ((ROOT, "src"), (wheels, "wheels"), (archives, "var/cache/apt/archives")):
            _run([*SUDO, "mkdir", "-p", str(root / target)])
            mount("--bind", str(source), str(root / target))
        # The checkout read-only: the installer must build elsewhere and leave the user's clone untouched.
        _run([*SUDO, "mount", "-o", "remount,bind,ro", str(root / "src")])
        made = DebianRoot(root, suite, machine)
        if then is not None:
            then(made)
        return made

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
        with ThreadPoolExecutor() as pool:
            list(pool.map(lambda made: _remove(*made), self._made))


def _remove(root: Path, mounts: list[Path]) -> None:
    for target in reversed(mounts):
        subprocess.run([*SUDO, "umount", "-l", str(target)], capture_output=True)
    if not _mounted_under(root):
        subprocess.run([*SUDO, "rm", "-rf", "--one-file-system", str(root)], capture_output=True)


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Roots]:
    made = Roots(tmp_path_factory.mktemp("roots"))
    try:
        yield made
    finally:
        made.close()
