"""Port discovery never stalls on a device that sends frames a grid would send but never answers the hello: it is
passed over for the next candidate after a bounded wait, and tried again on the next round."""

from __future__ import annotations

import binascii
import time

import pytest
from serial.tools.list_ports_common import ListPortInfo

from companion.sensing.reed import HELLO_WAIT, ReedLink, survey
from companion.sim.pty_device import PtyDevice
from companion.sim.simavr_grid import virtual_grid


def silent_grid() -> PtyDevice:
    """A device that sends valid heartbeat frames every 100 ms, as a running grid would, but never answers the hello's
    question."""

    def heartbeat(n: int) -> bytes:
        body = f"{n & 0xFF:02X} K {n * 100:08X}".encode()
        crc = binascii.crc_hqx(body, 0xFFFF)  # CRC-16/CCITT-FALSE, as firmware/PROTOCOL.md names it
        return body + f" *{crc:04X}\r\n".encode()

    return PtyDevice(heartbeat)


def _port(device: str) -> ListPortInfo:
    info = ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid, info.description = 0x1A86, 0x7523, "USB2.0-Serial"  # a CH340, as both devices would be
    return info


@pytest.fixture
def silent(tmp_path):
    device = silent_grid()
    (tmp_path / "ttyUSB0").symlink_to(device.path)  # first by name, so it is tried first
    yield device, str(tmp_path / "ttyUSB0")
    device.stop()


def test_a_device_that_never_answers_the_hello_is_passed_over_for_the_grid(silent, tmp_path):
    device, silent_port = silent
    grid = virtual_grid(8, 8).start()
    grid.go()
    (tmp_path / "ttyUSB1").symlink_to(grid.port)
    ports = [_port(silent_port), _port(str(tmp_path / "ttyUSB1"))]
    started = time.monotonic()
    try:
        with ReedLink(comports=lambda: list(ports)) as link:
            assert link.wait_synced(HELLO_WAIT + 10), link.counters  # a wait, not a goal
            took = time.monotonic() - started
            assert link.found_port == str(tmp_path / "ttyUSB1")
            grid.close_switch(3, 4)
            deadline = time.monotonic() + 5
            while link.occupancy() != {(3, 4)} and time.monotonic() < deadline:
                time.sleep(0.01)
            assert link.occupancy() == {(3, 4)}
    finally:
        grid.stop()
    assert took < HELLO_WAIT + 3  # the silent device's bound, then the grid's hello
    lines = device.heard.splitlines()
    assert lines and all(line.split()[0] == b"I" for line in lines)  # it sent frames, so it was asked; nothing more


def test_a_lone_device_that_never_answers_is_tried_again_and_again(silent):
    _device, silent_port = silent
    with ReedLink(comports=lambda: [_port(silent_port)], backoff=(0.05, 0.1)) as link:
        time.sleep(3 * HELLO_WAIT + 1)
        assert not link.synced and link.info is None
        assert link.counters.reconnects >= 2
        assert link.counters.frames > 0


def test_grid_ports_says_a_device_sent_frames_but_never_answered_the_handshake(silent):
    _device, silent_port = silent
    (report,) = survey(lambda: [_port(silent_port)], wait=1.0)
    assert report.hello is None
    assert "reed-grid frames but did not answer the handshake within 1 s" in report.verdict
    assert f"companion firmware flash --port {silent_port}" in report.verdict
