"""The virtual grid (the twin's grid on machines without simavr) speaks the firmware's protocol over a real pty."""

from __future__ import annotations

import time

import pytest

from companion.sensing.reed import ReedLink
from companion.sim.simavr_grid import virtual_grid


@pytest.fixture
def vgrid():
    grid = virtual_grid(8, 8).start()
    yield grid
    grid.stop()


def _wait(condition, timeout=3.0):
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < timeout, "timed out"
        time.sleep(0.005)


def test_link_over_the_virtual_grid(vgrid):
    vgrid.close_switch(2, 2)
    with ReedLink(vgrid.port, debounce_ms=10) as link:
        vgrid.go()
        assert link.wait_synced(3)
        assert link.info.firmware.endswith("virtual") and (link.info.rows, link.info.cols) == (8, 8)
        assert link.occupancy() == {(2, 2)}
        _wait(lambda: link.info.debounce_ms == 10)
        while link.next_change(0.05):
            pass
        vgrid.close_switch(7, 7)
        _wait(lambda: link.occupancy() == {(2, 2), (7, 7)})
        change = link.next_change(1)
        assert (change.switch, change.closed, change.source) == ((7, 7), True, "change")
        vgrid.pulse(0, 0, 3_000)  # shorter than the 10 ms debounce
        time.sleep(0.1)
        assert link.next_change(0.05) is None
        assert link.ping(1.0) is not None
        vgrid.reset()
        _wait(lambda: link.counters.resets == 1 and link.synced)
        assert link.occupancy() == {(2, 2), (7, 7)}
        assert link.counters.crc_errors == link.counters.bad_frames == 0


def test_the_link_tells_of_a_lost_grid_but_not_of_its_own_stop(vgrid):
    told = []
    link = ReedLink(vgrid.port, on_link=told.append).start()
    vgrid.go()
    assert link.wait_synced(3)
    link.stop()
    assert told == [True] and not link.connected and not link.synced
