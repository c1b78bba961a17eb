"""The firmware's plain C++ core, compiled for the host with address and undefined-behaviour sanitizers."""

from __future__ import annotations

import subprocess

from companion.sim.simavr_grid import FIRMWARE


def test_core_unit_tests_pass_under_sanitizers(tmp_path):
    result = subprocess.run(
        ["make", "-C", str(FIRMWARE), f"BUILD={tmp_path}", "host-test"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "core tests passed" in result.stdout


def test_sketch_sizes_fit_the_boards(firmware_build):
    """The builds CI makes are the ones the Arduino IDE makes from the same folder: check they fit the chips."""
    limits = {"uno": (32256, 2048), "nano": (30720, 2048), "mega": (253952, 8192)}
    for board, (flash, ram) in limits.items():
        out = (
            subprocess.run(
                ["avr-size", str(firmware_build / board / "reed_grid.elf")], capture_output=True, text=True, check=True
            )
            .stdout.splitlines()[-1]
            .split()
        )
        text, data, bss = int(out[0]), int(out[1]), int(out[2])
        assert text + data <= flash and data + bss <= ram // 2, (board, text, data, bss)
