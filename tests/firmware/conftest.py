"""The real firmware in simavr for the host link's tests: built once per session, one harness per test, and a
fault-injecting wire between the harness's pty and the host's."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import shutil
import threading
import time
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.sensing.reed import ReedLink
from companion.sim.simavr_grid import GridProcess, build, simavr_grid

TOOLS = ("avr-g++", "avr-gcc", "avr-objcopy", "gcc", "g++", "make")


@pytest.fixture(scope="session")
def firmware_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    # CI installs these from .ci/apt-test; a machine without them fails here rather than skipping.
    assert not missing, f"missing tools {missing}: install the packages in .ci/apt-test"
    return build(tmp_path_factory.mktemp("firmware"))


@pytest.fixture(params=["nano", "mega"])
def board(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def grid(firmware_build: Path, board: str) -> Iterator[GridProcess]:
    process = simavr_grid(board, firmware_build).start()
    yield process
    process.stop()


class FaultyWire:
    """A pty in front of the grid's pty that forwards bytes both ways and, on request, damages the grid's output or
    unplugs: the host opens `path`, a symlink that moves to a new pty when the wire is plugged in again, like
    /dev/serial/by-id after a USB replug."""

    def __init__(self, upstream: str, path: Path) -> None:
        self.path = path
        self.up = os.open(upstream, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self.up)
        self.lock = threading.Lock()
        self.plugged = False
        self.corrupt = 0  # bytes still to damage
        self.drop = 0  # bytes still to drop
        self.drop_lines = 0  # whole frames still to drop
        self.truncate = 0  # frames still to cut short
        self._mode = ""
        self._column = 0
        self._stop = threading.Event()
        self._plug()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> FaultyWire:
        self._thread.start()
        return self

    def _plug(self) -> None:
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        tmp = self.path.with_suffix(".new")
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(os.ttyname(self.slave))
        tmp.replace(self.path)
        self.plugged = True

    def unplug(self) -> None:
        with self.lock:
            self.plugged = False
            self.path.unlink(missing_ok=True)
            os.close(self.master)
            os.close(self.slave)

    def replug(self) -> None:
        with self.lock:
            self._plug()

    def inject(self, data: bytes) -> None:
        with self.lock:
            os.write(self.master, data)

    def _damage(self, data: bytes) -> bytes:
        out = bytearray()
        for byte in data:
            if self._column == 0:  # a frame starts: does a whole-frame fault take it?
                self._mode = ""
                if self.drop_lines:
                    self.drop_lines -= 1
                    self._mode = "drop"
                elif self.truncate:
                    self.truncate -= 1
                    self._mode = "cut"
            self._column = 0 if byte == 0x0A else self._column + 1
            if self._mode == "drop" or (self._mode == "cut" and byte != 0x0A and self._column > 12):
                continue
            if self.drop:
                self.drop -= 1
                continue
            if self.corrupt and byte != 0x0A:
                self.corrupt -= 1
                byte ^= 0x04
            out.append(byte)
        return bytes(out)

    def _run(self) -> None:
        while not self._stop.is_set():
            with self.lock:
                fds = [self.up] + ([self.master] if self.plugged else [])
            ready, _, _ = select.select(fds, [], [], 0.01)
            with self.lock:
                if self.up in ready:
                    data = os.read(self.up, 4096)
                    if self.plugged:
                        data = self._damage(data)
                        with contextlib.suppress(OSError):
                            os.write(self.master, data)
                if self.plugged and self.master in ready:
                    with contextlib.suppress(OSError):  # the host closed its side for a moment
                        os.write(self.up, os.read(self.master, 4096))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        if self.plugged:
            self.unplug()
        os.close(self.up)


@pytest.fixture
def wire(grid: GridProcess, tmp_path: Path) -> Iterator[FaultyWire]:
    faulty = FaultyWire(grid.port, tmp_path / "ttyGRID").start()
    yield faulty
    faulty.stop()


def wait_until(condition, timeout: float = 3.0) -> float:
    """Seconds it took until condition() was true; fails the test after timeout."""
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < timeout, "timed out"
        time.sleep(0.005)
    return time.monotonic() - started


def drain_changes(link: ReedLink, quiet: float = 0.15) -> list:
    """Every change the link reports until it has been quiet for a while."""
    out = []
    while (change := link.next_change(quiet)) is not None:
        out.append(change)
    return out


@pytest.fixture
def wait_for():
    return wait_until


@pytest.fixture
def drain():
    return drain_changes


@pytest.fixture
def connect(grid: GridProcess) -> Iterator:
    """Starts a link on a port, boots the firmware once the host has opened it, and waits for the first snapshot;
    the links are stopped after the test."""
    links: list[ReedLink] = []

    def start(port: str, **options: object) -> ReedLink:
        link = ReedLink(port, **options).start()  # type: ignore[arg-type]
        links.append(link)
        time.sleep(0.05)
        grid.go()
        assert link.wait_synced(5), f"no sync: {link.counters}"
        return link

    yield start
    for link in links:
        link.stop()
