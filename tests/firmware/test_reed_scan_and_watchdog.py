"""The firmware's own timing and its watchdog, in simavr behind the real bootloaders: a scan every millisecond
tick under every load `companion bench reed` prints, and a stopped sketch restarted by the watchdog."""

from __future__ import annotations

import pytest

from companion.bench.reed import SCAN_GOAL_US, scan_times
from companion.cli import main
from companion.sensing.reed import ReedLink


@pytest.mark.parametrize("board", ["mega", "uno"])
def test_every_scan_within_a_millisecond_whatever_the_switches_do(firmware_build, board):
    """The flood flips every switch at once every 25 ms: each flip is 256 real changes on the Mega to debounce and
    report, six floods in the 150 ms; the ripple gives every row's switches as many different moments as there are
    switches; a faulty diode makes every scan of one row look into it. Still no scan over the goal and no tick
    without a scan."""
    loads = {load.name: load for load in scan_times(board, firmware_build, sim_ms=150)}
    assert set(loads) == {"idle", "full chatter", "flood: all at once", "ripple by column", "a faulty diode"}
    for name in loads:
        assert loads[name].scans >= 100
        assert max(loads[name].durations_us) <= SCAN_GOAL_US, name
        assert loads[name].missed_ticks == 0, name


def test_bench_reed_prints_scan_times_per_board(firmware_build, capsys):
    assert main(["bench", "reed", "--scan-only", "--scan-ms", "60", "--build", str(firmware_build)]) == 0
    out = capsys.readouterr().out
    for board in ("uno", "mega"):
        assert f"reed grid scan, {board} firmware behind its bootloader" in out
    assert out.count("full chatter") == 2 and out.count("flood: all at once") == 2
    assert "goal every scan <= 1000 us" in out


def test_a_stopped_sketch_is_restarted_by_its_watchdog(grid, wire, connect, wait_for):
    grid.close_switch(1, 1)
    link: ReedLink = connect(str(wire.path))
    grid.command("hang")  # interrupts off, the CPU jumping to itself
    wait_for(lambda: grid.resets()[1] == 1)
    wait_for(lambda: link.counters.resets == 1 and link.synced)
    assert link.occupancy() == {(1, 1)}
    grid.run_for(500_000)  # twice the watchdog's 250 ms on the board's own clock
    assert grid.resets()[1] == 1  # and it runs on: the loop feeds the watchdog
