"""A reversed or shorted diode under a closed switch, in the real firmware: the matrix in the harness is a network of
lines, diodes and driven pins, and it counts every moment a pin driven high is joined to a pin driven low (a fight
that would put some 70-85 mA through the two pins). Only the row being read is driven, and only low, so no diode
fault can make a fight; and a switch of the read row that may be a ghost through the faulty diode keeps its state,
so the link shows the board as it is except for the faulty crossing itself."""

from __future__ import annotations

import time

import pytest

FAULTY, ROW_PIECE, SAME_ROW = (1, 2), (4, 2), (1, 5)  # the faulty crossing, a piece in its column, one in its row
ELSEWHERE = {(6, 6), (0, 7), (3, 0)}


@pytest.mark.parametrize("fault", ["shorted", "reversed"])
def test_a_faulty_diode_fights_no_pin_and_shows_no_switch_but_its_own_wrong(grid, wire, connect, wait_for, fault):
    link = connect(str(wire.path))
    grid.diode(*FAULTY, fault)
    pieces = {FAULTY, ROW_PIECE, SAME_ROW} | ELSEWHERE  # three corners of a rectangle; the fourth, (4, 5), is empty
    for switch in sorted(pieces):
        grid.close_switch(*switch)
    # A shorted diode still passes its own switch's current; a reversed one blocks it, so that switch never reads.
    shown = pieces if fault == "shorted" else pieces - {FAULTY}
    wait_for(lambda: link.occupancy() == shown)
    grid.run_for(200_000)  # 200 scans with the fault's current path closed
    time.sleep(0.05)
    assert link.occupancy() == shown
    # The piece in the faulty diode's column lifted and set down again, and a piece on the empty corner while the
    # rectangle is open: each is shown as it is.
    grid.open_switch(*ROW_PIECE)
    wait_for(lambda: link.occupancy() == shown - {ROW_PIECE})
    grid.close_switch(4, 5)
    wait_for(lambda: link.occupancy() == shown - {ROW_PIECE} | {(4, 5)})
    grid.close_switch(*ROW_PIECE)
    wait_for(lambda: link.occupancy() == shown | {(4, 5)})
    grid.run_for(100_000)
    time.sleep(0.05)
    assert link.occupancy() == shown | {(4, 5)}
    assert grid.fights() == (0, 0, "-")
    assert grid.column_drives() > 0  # it looked for the faulty diode by driving columns low, never high
    assert link.synced and link.counters.resyncs == 0


def test_a_released_row_is_charged_so_its_columns_recover_as_fast_as_before(grid, wire, connect, wait_for):
    """A row line left to float when released would hold the columns of its closed switches low until their pull-ups
    had charged it through the diodes, a ghost one row down; the firmware drives a released row high for a few cycles
    (while nothing is driven low) before it becomes an input, so the columns climb back as fast as they would beside
    a row held high."""
    link = connect(str(wire.path))
    grid.slow_column(0, fall_us=0.5, rise_us=5)  # a long line with its 4.7 kOhm pull-up
    grid.row_line(40)  # and a floating row would keep it low 40 us longer, past the 12 us the next row settles
    grid.close_switch(0, 0)
    wait_for(lambda: (0, 0) in link.occupancy())
    grid.run_for(100_000)
    time.sleep(0.05)
    assert link.occupancy() == {(0, 0)}
    assert grid.fights() == (0, 0, "-")
    assert grid.column_drives() == 0  # a sound grid never makes the firmware look for a faulty diode
