"""The real firmware in simavr for the host link's tests: built once per session, one harness per test, and a
fault-injecting wire (companion.sim.wire) between the harness's pty and the host's."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.sensing.reed import ReedLink
from companion.sim.simavr_grid import GridProcess, build, simavr_grid
from companion.sim.wire import FaultyWire

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


@pytest.fixture
def wire(grid: GridProcess, tmp_path: Path) -> Iterator[FaultyWire]:
    faulty = FaultyWire(grid.port, tmp_path / "ttyGRID", on_replug=grid.power_cycle).start()
    yield faulty
    faulty.stop()


# Waits for something the board does end as soon as it is done: the bound only catches a board that never does it,
# and is wide because a loaded machine runs the simulation slower than real time. Goals on time are asserted apart,
# on the board's own clock or, for the host, against it (companion.sim.simavr_grid.BoardClock).
PATIENCE = 60.0


def wait_until(condition, timeout: float = PATIENCE) -> float:
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
def connect(grid: GridProcess, wire: FaultyWire) -> Iterator:
    """Starts a link on the wire's port, boots the firmware once the host has opened it (so that opening resets
    nothing), and waits for the first snapshot; the links are stopped after the test."""
    links: list[ReedLink] = []

    def start(port: str, **options: object) -> ReedLink:
        opens = wire.opens
        link = ReedLink(port, **options).start()  # type: ignore[arg-type]
        links.append(link)
        wait_until(lambda: wire.opens > opens)
        grid.go()
        assert link.wait_synced(PATIENCE), f"no sync: {link.counters}"
        return link

    yield start
    for link in links:
        link.stop()
