"""The grid as it is plugged in: the firmware behind each board's own bootloader, the chip reset whenever the host
opens the port (DTR), at real time. The host must sync within 3 s, never reopen the port while the bootloader
listens, and come back after an unplug or a reset in the middle of a stream."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import serial

from companion.sensing import frames
from companion.sensing.reed import ReedLink
from companion.sim.simavr_grid import simavr_grid
from companion.sim.wire import FaultyWire

SYNC_WITHIN = 3.0


def _plugged(firmware_build: Path, tmp_path: Path, board: str, **options: object):
    grid = simavr_grid(board, firmware_build, realtime=True, **options).start()  # type: ignore[arg-type]
    grid.go()  # powered over USB before anyone opens the port
    wire = FaultyWire(grid.port, tmp_path / "ttyACM0", on_replug=grid.power_cycle).start()
    time.sleep(0.3)  # the wire's own opening reset the board: let that boot pass
    return grid, wire


@pytest.mark.parametrize("board", ["mega", "uno", "nano", "nano-old"])
def test_the_host_syncs_through_the_real_bootloader(firmware_build, tmp_path, board):
    grid, wire = _plugged(firmware_build, tmp_path, board)
    try:
        resets_before = grid.resets()[0]
        started = time.monotonic()
        with ReedLink(str(wire.path)) as link:
            assert link.wait_synced(SYNC_WITHIN + 2), f"{board}: no sync ({link.counters})"
            took = time.monotonic() - started
            assert grid.resets()[0] == resets_before + 1  # opening the port reset the chip, once
            assert link.counters.reconnects == 0  # and the host never reopened it while the bootloader listened
        print(f"{board}: synced {took:.2f} s after opening the port")
        assert took < SYNC_WITHIN
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
            while b" H " not in heard and time.monotonic() - started < 12:
                heard += port.read(200)
            assert b" H " in heard
            print(f"stk500v2 started the sketch {time.monotonic() - started:.1f} s after the last stray byte")
    finally:
        grid.stop()


def test_unplug_replug_and_reset_mid_stream_on_the_mega(firmware_build, tmp_path):
    grid, wire = _plugged(firmware_build, tmp_path, "mega")
    try:
        with ReedLink(str(wire.path)) as link:
            assert link.wait_synced(SYNC_WITHIN + 2)
            grid.close_switch(3, 4)
            _until(lambda: link.occupancy() == {(3, 4)}, 1.0)
            wire.unplug()
            _until(lambda: not link.connected, 2.0)
            grid.close_switch(5, 6)  # a piece set down while the cable was out
            wire.replug()
            took = _until(lambda: link.synced and link.occupancy() == {(3, 4), (5, 6)}, SYNC_WITHIN + 2)
            assert took < SYNC_WITHIN, f"back {took:.2f} s after the replug"
            grid.reset()  # the reset button, mid-stream
            grid.open_switch(3, 4)
            took = _until(lambda: link.counters.resets == 1 and link.synced and link.occupancy() == {(5, 6)}, 5.0)
            assert took < SYNC_WITHIN, f"back {took:.2f} s after the reset"
    finally:
        wire.stop()
        grid.stop()


def test_a_board_without_auto_reset_is_asked_for_its_hello(firmware_build, tmp_path):
    """The capacitor workaround: opening the port no longer resets the board, so no boot hello comes; the host hears
    the running firmware's heartbeats and asks."""
    grid, wire = _plugged(firmware_build, tmp_path, "mega", auto_reset=False)
    try:
        time.sleep(1.5)  # the power-up boot is long over
        started = time.monotonic()
        with ReedLink(str(wire.path)) as link:
            assert link.wait_synced(2.0)
            assert link.info is not None and link.info.reason == "ask"
            assert time.monotonic() - started < 1.0
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
