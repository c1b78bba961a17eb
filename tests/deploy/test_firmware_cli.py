"""`companion firmware`: the build each board gets, the one-line errors, and the handshake check over a pty."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
import tty
from pathlib import Path

import pytest

from companion.firmware_tools import CORE_ROOT, avrdude_command, udev_rules
from companion.sensing.usb_ids import USB_IDS
from companion.sim.simavr_grid import virtual_grid

ROOT = Path(__file__).resolve().parents[2]


def companion(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300
    )


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    return result.stderr.strip()


@pytest.mark.parametrize(("board", "mcu"), [("mega", "atmega2560"), ("uno", "atmega328p")])
def test_build_writes_a_hex_for_the_boards_processor(tmp_path, board, mcu):
    result = companion("firmware", "build", "--board", board, "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    hex_file = tmp_path / board / "reed_grid.hex"
    assert result.stdout.strip() == f"built {hex_file}"
    lines = hex_file.read_text().split()
    assert all(line.startswith(":") for line in lines) and lines[-1] == ":00000001FF"
    # The ELF's machine flags name the AVR family: avr6 (ATmega2560) or avr5 (ATmega328P).
    header = subprocess.run(
        ["avr-readelf", "-h", str(tmp_path / board / "reed_grid.elf")], capture_output=True, text=True, check=True
    ).stdout
    assert ("avr:6" if mcu == "atmega2560" else "avr:5") in header
    # The firmware's own size: the Mega's 16 x 16 build is bigger than the 8 x 8 one and fits either flash.
    size = sum(int(line[1:3], 16) for line in lines if line[7:9] == "00")
    assert 2000 < size < (256 if board == "mega" else 32) * 1024 - 2048


def test_flash_to_a_missing_port_is_one_line_before_any_build(tmp_path):
    error = one_line_error(
        companion(
            "firmware", "flash", "--port", str(tmp_path / "ttyACM9"), "--board", "uno", "--out", str(tmp_path / "build")
        )
    )
    assert (
        error == f"companion: firmware flash: no serial port {tmp_path / 'ttyACM9'} (is the Arduino plugged in? "
        "see ls /dev/serial/by-id)"
    )
    assert not (tmp_path / "build").exists()


def test_flash_without_avrdude_names_the_package(tmp_path):
    bin_dir = tmp_path / "bin"  # a PATH with python but no avrdude
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    env = {**os.environ, "PATH": str(bin_dir)}
    error = one_line_error(companion("firmware", "flash", "--port", "/dev/null", "--board", "uno", env=env))
    assert error == "companion: firmware flash: avrdude is not installed (Debian: sudo apt install avrdude)"


def test_avrdude_speaks_each_boards_bootloader():
    mega = avrdude_command("mega", "/dev/ttyACM0", Path("/x.hex"), 115200)
    assert mega == [
        "avrdude",
        "-p",
        "atmega2560",
        "-c",
        "wiring",
        "-P",
        "/dev/ttyACM0",
        "-b",
        "115200",
        "-D",
        "-U",
        "flash:w:/x.hex:i",
    ]
    assert avrdude_command("nano", "/dev/ttyUSB0", Path("/x.hex"), 57600)[2:9] == [
        "atmega328p",
        "-c",
        "arduino",
        "-P",
        "/dev/ttyUSB0",
        "-b",
        "57600",
    ]


def test_check_reads_the_handshake_of_a_grid_over_a_pty():
    with virtual_grid(8, 8) as grid:
        grid.go()
        result = companion("firmware", "check", "--port", grid.port, "--board", "uno")
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == (
            f"handshake on {grid.port}: firmware 1.0.0-virtual, protocol 1, 8 x 8 switches, debounce 20 ms"
        )
        error = one_line_error(companion("firmware", "check", "--port", grid.port, "--board", "mega"))
        assert error == f"companion: firmware check: {grid.port} reports a 8 x 8 grid, but a mega has 16 x 16"


def test_check_on_a_silent_port_is_a_failed_handshake():
    master, slave = pty.openpty()  # a port that opens but where no firmware answers
    tty.setraw(slave)
    try:
        error = one_line_error(companion("firmware", "check", "--port", os.ttyname(slave), "--timeout", "1"))
        assert error.startswith(f"companion: firmware check: no handshake on {os.ttyname(slave)} within 1 s")
    finally:
        os.close(master)
        os.close(slave)


def test_udev_rule_names_every_usb_id_the_host_link_knows():
    result = companion("firmware", "udev-rule")
    rules = [line for line in result.stdout.splitlines() if line.startswith("SUBSYSTEM")]
    assert len(rules) == len(USB_IDS)
    for vid, pid in ((u.vid, u.pid) for u in USB_IDS):
        assert any(f'ATTRS{{idVendor}}=="{vid:04x}", ATTRS{{idProduct}}=="{pid:04x}"' in rule for rule in rules)
    assert all('SYMLINK+="orrery-grid"' in rule and 'GROUP="dialout"' in rule for rule in rules)


def test_the_shipped_udev_rule_is_the_one_generated_from_the_id_list():
    shipped = Path(__file__).resolve().parents[2] / "deploy" / "60-orrery.rules"
    assert shipped.read_text() == udev_rules(), "regenerate it: companion firmware udev-rule > deploy/60-orrery.rules"


def test_the_id_list_has_every_uno_and_mega_id_of_the_arduino_core():
    text = (CORE_ROOT / "boards.txt").read_text()
    ids = set()
    for board in ("uno", "mega"):
        vids = dict(re.findall(rf"^{board}\.vid\.(\d+)=0x([0-9A-Fa-f]{{4}})", text, re.M))
        pids = dict(re.findall(rf"^{board}\.pid\.(\d+)=0x([0-9A-Fa-f]{{4}})", text, re.M))
        ids |= {(int(vids[n], 16), int(pids[n], 16)) for n in vids}
    assert len(ids) >= 11
    assert ids <= {(u.vid, u.pid) for u in USB_IDS}
