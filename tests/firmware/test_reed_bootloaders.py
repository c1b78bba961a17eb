"""The grid as it is plugged in: the firmware behind each board's own bootloader, the chip reset whenever the host
opens the port (DTR), at real time. The host must sync within 3 s, never reopen the port while the bootloader
listens, and come back after an unplug or a reset in the middle of a stream.

The 3 s are the board's own: on a loaded machine the simulated chip runs slower than the wall clock, so the
bootloader's wait is timed on the simulation's clock (BoardClock), and the host's patience before it reopens a
silent port is stretched by the speed the simulation was measured to run at, as a real board would have it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import serial

from companion.sensing import frames
from companion.sensing.reed import BOOT_WAIT, ReedLink
from companion.sim.simavr_grid import BoardClock, simavr_grid
from companion.sim.wire import FaultyWire

SYNC_WITHIN = 3.0
PATIENCE = 60.0  # wall-clock bound on any wait here: only a board that never answers takes this long


def _plugged(firmware_build: Path, tmp_path: Path, board: str, **options: object):
    """The board powered and its cable in, and how fast the simulation runs (board seconds per wall second, at most
    1: it is throttled to real time)."""
    grid = simavr_grid(board, firmware_build, realtime=True, **options).start()  # type: ignore[arg-type]
    grid.go()  # powered over USB before anyone opens the port
    clock = BoardClock(grid)
    wire = FaultyWire(grid.port, tmp_path / "ttyACM0", on_replug=grid.power_cycle).start()
    if options.get("auto_reset", True):  # the wire's own opening reset the board: once that reset has taken effect
        _until(lambda: grid.resets()[0] == 1, PATIENCE)
    _until(lambda: clock.elapsed()[1] >= 0.3, PATIENCE)
    wall, board_s = clock.elapsed()
    return grid, wire, min(1.0, board_s / wall)


def _link(wire: FaultyWire, speed: float) -> ReedLink:
    """The host's link, its wait for a silent bootloader stretched as far as the simulated chip runs slow, twice
    over: the load beside it changes from one second to the next."""
    return ReedLink(str(wire.path), boot_wait=2 * BOOT_WAIT / speed)


@pytest.mark.parametrize("board", ["mega", "uno", "nano", "nano-old"])
def test_the_host_syncs_through_the_real_bootloader(firmware_build, tmp_path, board):
    grid, wire, speed = _plugged(firmware_build, tmp_path, board)
    try:
        resets_before = grid.resets()[0]
        clock = BoardClock(grid)
        with _link(wire, speed) as link:
            assert link.wait_synced(PATIENCE), f"{board}: no sync ({link.counters})"
            wall, took = clock.elapsed()
            assert grid.resets()[0] == resets_before + 1  # opening the port reset the chip, once
            assert link.counters.reconnects == 0  # and the host never reopened it while the bootloader listened
        print(f"{board}: synced {took:.2f} s of the board's time ({wall:.2f} s of wall time) after opening the port")
        assert took < SYNC_WITHIN, f"{board}: {took:.2f} s of the board's time, {wall:.2f} s of wall time"
    finally:
        wire.stop()
        grid.stop()


def test_bytes_sent_at_once_keep_the_mega_in_its_bootloader(firmware_build):
    """Why the host waits: stk500v2 takes every byte for the start of an upload and listens on, so a host that asks
    for the hello at once and keeps asking never hears the firmware."""
    grid = simavr_grid("mega", firmware_build, realtime=True).start()
    try:
        grid.go()
        with serial.Serial(grid.port, 115200, timeout=0.05) as port:  # opening resets the chip
            heard = b""
            for _ in range(10):
                port.write(b"I\n")
                heard += port.read(200)
                time.sleep(0.25)
            assert frames.PROTOCOL_VERSION and b" H " not in heard
            started = time.monotonic()  # once the host falls silent, the bootloader times out and the sketch starts
            while b" H " not in heard and time.monotonic() - started < PATIENCE:
                heard += port.read(200)
            assert b" H " in heard
            print(f"stk500v2 started the sketch {time.monotonic() - started:.1f} s after the last stray byte")
    finally:
        grid.stop()


def test_unplug_replug_and_reset_mid_stream_on_the_mega(firmware_build, tmp_path):
    grid, wire, speed = _plugged(firmware_build, tmp_path, "mega")
    try:
        with _link(wire, speed) as link:
            assert link.wait_synced(PATIENCE)
            grid.close_switch(3, 4)
            _until(lambda: link.occupancy() == {(3, 4)}, PATIENCE)
            wire.unplug()
            _until(lambda: not link.connected, 2.0)  # the host's own: the port it reads from is gone
            grid.close_switch(5, 6)  # a piece set down while the cable was out
            clock = BoardClock(grid)
            wire.replug()
            _until(lambda: link.synced and link.occupancy() == {(3, 4), (5, 6)}, PATIENCE)
            wall, took = clock.elapsed()
            assert took < SYNC_WITHIN, f"back {took:.2f} s of the board's time ({wall:.2f} s of wall) after the replug"
            clock = BoardClock(grid)
            grid.reset()  # the reset button, mid-stream
            grid.open_switch(3, 4)
            _until(lambda: link.counters.resets == 1 and link.synced and link.occupancy() == {(5, 6)}, PATIENCE)
            wall, took = clock.elapsed()
            assert took < SYNC_WITHIN, f"back {took:.2f} s of the board's time ({wall:.2f} s of wall) after the reset"
    finally:
        wire.stop()
        grid.stop()


def test_a_board_without_auto_reset_is_asked_for_its_hello(firmware_build, tmp_path):
    """The capacitor workaround: opening the port no longer resets the board, so no boot hello comes; the host hears
    the running firmware's heartbeats and asks."""
    grid, wire, speed = _plugged(firmware_build, tmp_path, "mega", auto_reset=False)
    try:
        _until(lambda: grid.time_us() > 1_500_000, PATIENCE)  # the power-up boot is long over
        clock = BoardClock(grid)
        with _link(wire, speed) as link:
            assert link.wait_synced(PATIENCE)
            assert link.info is not None and link.info.reason == "ask"
            took, clocks = clock.host_seconds()
            assert took < 1.0, clocks
        assert grid.resets()[0] == 0
    finally:
        wire.stop()
        grid.stop()


def _until(condition, timeout: float) -> float:
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < timeout, "timed out"
        time.sleep(0.01)
    return time.monotonic() - started


def test_a_board_slower_to_boot_than_the_wait_is_found_all_the_same(firmware_build, tmp_path):
    """A host that waited ever the same time would reopen a slow board (a loaded host, a bootloader that listens
    longer) just before its hello, resetting it again, for ever: each reopening waits twice as long as the last."""
    grid, wire, speed = _plugged(firmware_build, tmp_path, "uno")
    try:
        with ReedLink(str(wire.path), boot_wait=0.2 / speed) as link:  # well under optiboot's second
            assert link.wait_synced(PATIENCE), f"no sync ({link.counters})"
            assert link.counters.reconnects >= 1 and link.info is not None and link.info.reason == "boot"
    finally:
        wire.stop()
        grid.stop()
