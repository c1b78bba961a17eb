"""Faults between the real firmware and the host: the host never reports a state the firmware did not have, and is
back in step within a second of the link returning. The host's seconds are timed beside a board running at real
speed (BoardClock): on a loaded machine the simulated board sends its frames later than a real one would."""

from __future__ import annotations

import time

import pytest

from companion.sim.simavr_grid import BoardClock


def _check_truthful(changes, before, after):
    """Every change reported while the board went from `before` to `after` moves a switch that really moved, to the
    state it really took (the firmware had no other states in between)."""
    for change in changes:
        assert change.switch in before ^ after, f"{change} names a switch that never moved"
        assert change.closed == (change.switch in after), f"{change} reports a state the switch never had"


def _pattern(grid, n, offset=0):
    return {((i + offset) // grid.cols % grid.rows, (i + offset) % grid.cols) for i in range(0, n * 3, 3)}


@pytest.mark.parametrize("fault", ["corrupt", "drop_bytes", "drop_frames", "truncate"])
def test_damaged_stream_is_detected_and_healed(grid, wire, connect, wait_for, drain, fault):
    before = _pattern(grid, 5)
    grid.set_all(before)
    link = connect(str(wire.path))
    assert link.occupancy() == before
    drain(link, 0.05)
    after = _pattern(grid, 7, offset=1)
    for round_ in range(3):
        with wire.lock:  # damage the frames that carry the next changes
            if fault == "corrupt":
                wire.corrupt = 3
            elif fault == "drop_bytes":
                wire.drop = 7
            elif fault == "drop_frames":
                wire.drop_lines = 2
            else:
                wire.truncate = 2
        target = after if round_ % 2 == 0 else before
        source = before if round_ % 2 == 0 else after
        clock = BoardClock(grid)
        grid.set_all(target)
        wait_for(lambda t=target: link.synced and link.occupancy() == t)
        took, clocks = clock.host_seconds()
        assert took < 1.0, clocks
        _check_truthful(drain(link, 0.1), source, target)
    counters = link.counters
    damage = counters.crc_errors + counters.bad_frames + counters.gaps
    assert damage >= 1 and counters.resyncs >= 1


def test_garbage_before_the_handshake(grid, wire, wait_for):
    from companion.sensing.reed import ReedLink

    grid.close_switch(0, 3)
    link = ReedLink(str(wire.path)).start()
    try:
        # The host has the port open (the board powers up after, not reset by it), and has emptied its input queue
        # as every opening does: garbage sent before that would never reach the link.
        wait_for(lambda: wire.opens == 1 and link.open_port is not None)
        wire.inject(b"\x00\xff\xfeNOISE 12 *ZZZZ\r\n00 S 00000000 8x8 FFFFFFFFFFFFFFFF *0000\r\nbabble")
        grid.go()
        assert link.wait_synced(30)
        assert link.occupancy() == {(0, 3)}  # the forged snapshot (bad CRC) never counted
        assert link.counters.crc_errors + link.counters.bad_frames >= 1
    finally:
        link.stop()


def test_firmware_reset_mid_stream(grid, wire, connect, wait_for, drain):
    before = {(0, 0), (1, 1)}
    grid.set_all(before)
    link = connect(str(wire.path))
    drain(link, 0.05)
    after = {(1, 1), (2, 2)}
    clock = BoardClock(grid)
    grid.reset()
    grid.set_all(after)  # pieces moved while the board restarted
    # Through the bootloader, which listens for an upload for about a second after a reset before the sketch starts.
    wait_for(lambda: link.counters.resets == 1 and link.synced and link.occupancy() == after)
    took, clocks = clock.host_seconds()
    assert took < 3.0, clocks
    _check_truthful(drain(link, 0.1), before, after)


def test_port_closed_and_reopened(grid, wire, connect, wait_for, drain):
    before = {(0, 1)}
    grid.set_all(before)
    link = connect(str(wire.path))
    drain(link, 0.05)
    wire.unplug()
    wait_for(lambda: not link.connected)
    after = {(0, 1), (3, 3)}
    grid.set_all(after)  # changed while unplugged
    time.sleep(0.8)
    assert link.occupancy() == before  # nothing invented while the link was down
    clock = BoardClock(grid)
    wire.replug()  # the board powers up, the host opens the port again, and that resets it into its bootloader
    wait_for(lambda: link.synced and link.occupancy() == after)
    took, clocks = clock.host_seconds()
    assert took < 5.0, clocks  # at real time within 3 s: test_reed_bootloaders.py
    assert link.counters.reconnects >= 1
    _check_truthful(drain(link, 0.1), before, after)


def test_flood_of_every_switch_at_once(grid, wire, connect, wait_for, drain):
    link = connect(str(wire.path))
    drain(link, 0.05)
    everything = {(r, c) for r in range(grid.rows) for c in range(grid.cols)}  # 256 on the Mega, 64 on the Nano
    grid.set_all(everything)
    wait_for(lambda: link.occupancy() == everything)
    changes = drain(link, 0.2)
    assert len(changes) == len(everything) and {c.switch for c in changes} == everything
    assert all(c.closed for c in changes)
    assert link.counters.gaps == link.counters.crc_errors == link.counters.bad_frames == 0
    grid.set_all(set())
    wait_for(lambda: link.occupancy() == frozenset())
    assert not any(c.closed for c in drain(link, 0.2))
