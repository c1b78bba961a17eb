"""Faults of the grid's own hardware, modelled in the harness: a stuck reed, a reed chattering slower than the
debounce, and a column line whose capacitance slows it down (the reason hardware/BOM.md lists pull-ups)."""

from __future__ import annotations

import itertools
import time


def test_a_stuck_reed_shows_as_it_is(grid, wire, connect, wait_for, drain):
    """A magnetised or welded reed stays closed and a cracked one never closes: the link reports what the switch
    does, not what the magnet above it would make it do (hardware/TROUBLESHOOTING.md says how to find them)."""
    grid.stuck(1, 1, "closed")
    grid.stuck(2, 2, "open")
    link = connect(str(wire.path))
    assert link.occupancy() == {(1, 1)}
    grid.close_switch(2, 2)
    grid.close_switch(3, 3)
    wait_for(lambda: (3, 3) in link.occupancy())
    grid.open_switch(1, 1)
    grid.run_for(100_000)
    time.sleep(0.05)
    assert link.occupancy() == {(1, 1), (3, 3)}
    grid.stuck(1, 1, "free")  # tapped loose
    wait_for(lambda: link.occupancy() == {(3, 3)})


def test_chatter_slower_than_the_debounce_is_reported_edge_by_edge(grid, wire, connect, wait_for, drain):
    """A reed at the edge of a weak magnet's reach opens and closes every 40 ms: each state outlasts the 20 ms
    debounce, so each is a real change; the link reports all of them in order and stays in step."""
    link = connect(str(wire.path))
    drain(link, 0.05)
    grid.chatter(2, 5, 40_000, 8)
    wait_for(lambda: link.changes.qsize() >= 8, timeout=10.0)
    changes = drain(link, 0.2)
    assert [c.closed for c in changes] == [True, False] * 4
    assert all(c.switch == (2, 5) and c.source == "change" for c in changes)
    for a, b in itertools.pairwise(changes):
        assert abs((b.firmware_ms - a.firmware_ms) - 40) <= 2
    assert link.synced and link.counters.gaps == link.counters.resyncs == 0


def test_chatter_faster_than_the_debounce_is_filtered(grid, wire, connect, drain):
    link = connect(str(wire.path))
    drain(link, 0.05)
    grid.chatter(0, 0, 7_000, 9)  # 9 edges 7 ms apart: it ends closed
    grid.run_for(200_000)
    changes = drain(link, 0.2)
    assert [(c.switch, c.closed) for c in changes] == [((0, 0), True)]


def test_a_slow_column_line_ghosts_without_a_pull_up(grid, wire, connect, wait_for, drain):
    """Column 0 as a long wire: with the chip's own ~35 kOhm pull-up it climbs back so slowly after its row is
    released that the next row still reads it low, a ghost on the switch below; a 4.7 kOhm pull-up at the board's
    far end makes it fast enough for the firmware's 12 us settle time."""
    link = connect(str(wire.path))
    drain(link, 0.05)
    grid.slow_column(0, fall_us=0.5, rise_us=40)  # about 1 nF of line through 35 kOhm: tau 35 us
    grid.close_switch(0, 0)
    wait_for(lambda: (0, 0) in link.occupancy())
    grid.run_for(100_000)
    assert (1, 0) in link.occupancy()  # the ghost
    grid.open_switch(0, 0)
    wait_for(lambda: not link.occupancy())
    grid.slow_column(0, fall_us=0.5, rise_us=5)  # the same line with 4.7 kOhm: tau under 5 us
    grid.close_switch(0, 0)
    wait_for(lambda: (0, 0) in link.occupancy())
    grid.run_for(100_000)
    time.sleep(0.05)
    assert link.occupancy() == {(0, 0)}
