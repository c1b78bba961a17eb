"""The host link against the real firmware in simavr (Nano 8 x 8 and Mega 16 x 16): handshake, changes, debounce,
commands, and the frames a person sees in a serial monitor."""

from __future__ import annotations

import itertools
import time

import serial

from companion.sensing import frames


def test_handshake_reports_the_matrix_and_starts_in_step(grid, wire, connect):
    grid.close_switch(1, 2)  # closed before power-up: the boot snapshot carries it
    link = connect(str(wire.path))
    hello = link.info
    assert (hello.protocol, hello.rows, hello.cols, hello.debounce_ms) == (1, grid.rows, grid.cols, 20)
    assert hello.firmware == "1.0.0"
    assert link.occupancy() == {(1, 2)}
    assert link.counters.crc_errors == link.counters.gaps == 0


def test_closing_and_opening_switches_are_reported_in_order(grid, wire, connect, wait_for, drain):
    link = connect(str(wire.path))
    drain(link, 0.05)
    last = (grid.rows - 1, grid.cols - 1)
    grid.close_switch(*last)
    wait_for(lambda: link.occupancy() == {last})
    grid.close_switch(0, 0)
    wait_for(lambda: link.occupancy() == {last, (0, 0)})
    grid.open_switch(*last)
    wait_for(lambda: link.occupancy() == {(0, 0)})
    changes = [(c.switch, c.closed, c.source) for c in drain(link)]
    assert changes == [(last, True, "change"), ((0, 0), True, "change"), (last, False, "change")]
    assert link.counters.gaps == link.counters.crc_errors == link.counters.resyncs == 0


def test_debounce_filters_short_pulses_and_times_long_ones(grid, wire, connect, wait_for, drain):
    link = connect(str(wire.path))
    drain(link, 0.05)
    grid.pulse(0, 1, 12_000)  # 12 ms: shorter than the 20 ms debounce, a bounce
    grid.run_for(200_000)
    assert drain(link, 0.05) == []
    grid.pulse(0, 1, 150_000)  # 150 ms of simulated time
    wait_for(lambda: link.changes.qsize() >= 2)
    closed, opened = drain(link)
    assert (closed.closed, opened.closed) == (True, False)
    # Both edges are delayed by the same debounce, so their firmware times are 150 ms apart (one scan's slack).
    assert abs((opened.firmware_ms - closed.firmware_ms) - 150) <= 2


def test_debounce_is_set_from_the_host_and_reapplied_after_a_reset(grid, wire, connect, wait_for, drain):
    link = connect(str(wire.path), debounce_ms=5)
    wait_for(lambda: link.info.debounce_ms == 5)
    drain(link, 0.05)
    grid.pulse(2, 3, 12_000)  # now longer than the debounce: seen
    wait_for(lambda: link.changes.qsize() >= 2)
    assert [c.closed for c in drain(link)] == [True, False]
    before = link.info
    grid.reset()  # the firmware forgets the setting when it restarts; the host sets it again
    # (how fast a reset syncs is the bootloader tests' business: this only waits until it has; a board slow enough
    # that the host reopened the port was reset once more, and is set again all the same)
    wait_for(lambda: link.info is not before and link.info.reason == "set" and link.info.debounce_ms == 5)
    assert grid.resets()[0] >= 1 and link.counters.resets + link.counters.reconnects >= 1


def test_ping_answers(grid, wire, connect):
    link = connect(str(wire.path))
    assert link.ping(30.0) is not None


def _not_set_hello(frame: frames.Frame) -> bool:
    return not (isinstance(frame, frames.Hello) and frame.reason == "set")


def test_serial_monitor_view_snapshots_heartbeats_and_errors(grid):
    """What a person sees and can type in a serial monitor, checked frame by frame."""
    with serial.Serial(grid.port, 115200, timeout=0.05) as port:
        grid.go()
        # A person waits for the board's hello before typing: what is typed into the bootloader keeps it waiting.
        # Bytes are gathered and cut into lines at the end: a read that times out mid-line returns half a line.
        received, started = b"", time.monotonic()
        while b"\n" not in received and time.monotonic() - started < 30.0:
            received += port.read(256)
        port.write(b"I\r\n")  # read-only commands need no CRC
        port.write(b"D 50\r\n")  # a setting does
        port.write(b"S *0000\r\n")  # a wrong CRC
        port.write(b"Z\r\n")  # no such command
        time.sleep(0.1)
        port.write(frames.encode_command("D", "35"))
        # Read for a second of the sketch's own clock after the new setting (a loaded host runs the chip slower).
        started, parsed = time.monotonic(), []
        while time.monotonic() - started < 30.0:
            received += port.read(256)
            parsed = [frames.parse_frame(line) for line in received.split(b"\n")[:-1]]  # the last: not finished
            after = [f.ms for f in itertools.dropwhile(_not_set_hello, parsed) if hasattr(f, "ms")]
            if after and after[-1] - after[0] >= 1000:
                break
    assert isinstance(parsed[0], frames.Hello) and parsed[0].reason == "boot"
    assert isinstance(parsed[1], frames.Snapshot)
    hellos = [f for f in parsed if isinstance(f, frames.Hello)]
    assert {h.reason for h in hellos} == {"boot", "ask", "set"} and hellos[-1].debounce_ms == 35
    # Errors waiting to be sent coalesce (the latest wins), but at least one is reported and no setting changed.
    assert {f.code for f in parsed if isinstance(f, frames.Error)} <= {"cmd", "crc"}
    assert any(isinstance(f, frames.Error) for f in parsed)
    assert [h.debounce_ms for h in hellos if h.reason == "set"] == [35]
    # Sequence numbers run without a gap; snapshots come at least once a second, heartbeats fill the quiet.
    seqs = [f.seq for f in parsed]
    assert all((b - a) & 0xFF == 1 for a, b in itertools.pairwise(seqs))
    snapshots = [f.ms for f in parsed if isinstance(f, frames.Snapshot)]
    clock = max(f.ms for f in parsed if hasattr(f, "ms"))  # the sketch's clock: the bootloader's time is not in it
    assert len(snapshots) >= clock // 1000
    assert all(b - a <= 1000 for a, b in itertools.pairwise(snapshots))
    assert any(isinstance(f, frames.Heartbeat) for f in parsed)
