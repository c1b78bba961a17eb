"""Finding the grid among USB serial devices: two CH340 devices, one a grid (the real firmware behind the Mega's
bootloader) and one a GPS receiver. USB ids cannot exist on a pty, so the ports are listed as pyserial's own
ListPortInfo records with the ids the devices would have."""

from __future__ import annotations

import time

import pytest
from serial.tools import list_ports
from serial.tools.list_ports_common import ListPortInfo

from companion.cli import main
from companion.sensing.reed import ReedLink, candidate_ports, survey
from companion.sim.pty_device import PtyDevice
from companion.sim.simavr_grid import simavr_grid
from companion.sim.wire import FaultyWire


def gps() -> PtyDevice:
    """A device that talks all the time, and not our protocol: an NMEA sentence every 100 ms."""
    return PtyDevice(lambda n: b"$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n")


def _port(device: str, vid: int | None, pid: int | None, description: str) -> ListPortInfo:
    info = ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid, info.description = vid, pid, description
    return info


@pytest.fixture
def two_ch340(firmware_build, tmp_path):
    grid = simavr_grid("mega", firmware_build).start()
    grid.go()
    wire = FaultyWire(grid.port, tmp_path / "ttyUSB1", on_replug=grid.power_cycle).start()
    device = gps()
    ports = [
        _port(str(wire.path), 0x1A86, 0x7523, "USB2.0-Serial"),  # the grid, second by name
        _port(str(tmp_path / "ttyUSB0"), 0x1A86, 0x7523, "USB2.0-Serial"),  # the GPS, first by name
        _port("/dev/ttyS0", None, None, "n/a"),
    ]
    (tmp_path / "ttyUSB0").symlink_to(device.path)
    yield grid, device, (lambda: list(ports)), str(wire.path)
    device.stop()
    wire.stop()
    grid.stop()


def test_the_link_finds_the_grid_by_its_hello_and_never_writes_to_the_other_device(two_ch340):
    grid, gps, comports, grid_port = two_ch340
    assert candidate_ports(comports)[1] == grid_port  # by USB id alone the GPS would come first
    with ReedLink(comports=comports) as link:
        assert link.wait_synced(60.0), link.counters  # a wait, not a goal
        assert link.found_port == grid_port
        grid.close_switch(2, 3)
        deadline = time.monotonic() + 30  # a wait, not a goal: a loaded machine runs the board slowly
        while link.occupancy() != {(2, 3)} and time.monotonic() < deadline:
            time.sleep(0.01)
        assert link.occupancy() == {(2, 3)}
    assert gps.heard == b""  # it answered nothing like a grid, so it was never written to


def test_grid_ports_lists_what_it_found_and_why(two_ch340, monkeypatch, capsys):
    _grid, gps, comports, grid_port = two_ch340
    reports = {r.device: r for r in survey(comports)}
    assert reports[grid_port].hello is not None and reports[grid_port].hello.rows == 16
    assert reports[grid_port].usb_id == "1a86:7523"
    assert "not a grid" in reports[str(grid_port).replace("ttyUSB1", "ttyUSB0")].verdict
    assert reports["/dev/ttyS0"].verdict.startswith("not probed")
    monkeypatch.setattr(list_ports, "comports", comports)
    assert main(["grid", "ports"]) == 0
    out = capsys.readouterr().out
    assert f"{grid_port}  1a86:7523  CH340 USB serial" in out
    assert "reed grid: firmware 1.0.0, protocol 1, 16 x 16, debounce 20 ms" in out
    assert "not a grid: no reed-grid frame within 3 s of opening it" in out
    assert "1 reed grid found" in out
    assert gps.heard == b""


def test_grid_ports_refuses_a_wait_out_of_range(capsys):
    assert main(["grid", "ports", "--wait", "0"]) == 2
    assert capsys.readouterr().err.strip() == "companion: grid ports: --wait 0 is outside 0.5..30 s"
