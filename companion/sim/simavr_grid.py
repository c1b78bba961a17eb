"""The real reed-grid firmware in simavr, behind a pseudo-terminal, with switches a program can close and open.

Builds the firmware and the harness (firmware/Makefile: gcc-avr, avr-libc, arduino-core-avr, libsimavr-dev) and
runs firmware/sim/grid_harness with the row and column pins read from firmware/reed_grid/pins.h, so the simulated
wiring is the wiring the sketch was built for. `GridProcess` is the control side shared with the virtual grid.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from companion.firmware_tools import BOARDS, CHECKOUT_FIRMWARE, CORE_ROOT, SIZES, build_all, firmware_dir

FIRMWARE = CHECKOUT_FIRMWARE
# The three firmwares and the harness, built as `companion firmware build` builds one board.
build = build_all


class GridProcess:
    """A grid in a child process that prints "pty NAME" and takes switch commands on stdin (see grid_harness.c)."""

    def __init__(self, argv: list[str], rows: int, cols: int) -> None:
        self.argv = argv
        self.rows, self.cols = rows, cols
        self.port = ""
        self._process: subprocess.Popen[str] | None = None

    def start(self) -> GridProcess:
        self._process = subprocess.Popen(
            self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        assert self._process.stdout is not None
        for line in self._process.stdout:  # simavr prints its own notes first
            if line.startswith("pty "):
                self.port = line.split()[1]
                return self
        raise RuntimeError(f"{self.argv[0]} exited before naming its pty (exit {self._process.wait()})")

    def command(self, text: str) -> str:
        """Sends one command and returns its answer once it has taken effect."""
        process = self._process
        assert process is not None and process.stdin is not None and process.stdout is not None
        process.stdin.write(text + "\n")
        process.stdin.flush()
        reply = process.stdout.readline().strip()
        if not reply.startswith("ok"):
            raise RuntimeError(f"grid: {text!r} answered {reply!r}")
        return reply[3:]

    def go(self) -> None:
        self.command("go")

    def close_switch(self, row: int, col: int) -> None:
        self.command(f"close {row} {col}")

    def open_switch(self, row: int, col: int) -> None:
        self.command(f"open {row} {col}")

    def pulse(self, row: int, col: int, microseconds: int) -> None:
        """Closes a switch and opens it again after this many microseconds of the grid's own time."""
        self.command(f"pulse {row} {col} {microseconds}")

    def set_all(self, closed: set[tuple[int, int]] | frozenset[tuple[int, int]]) -> None:
        words = [0] * self.rows
        for row, col in closed:
            words[row] |= 1 << col
        self.command("set " + " ".join(f"{w:X}" for w in words))

    def reset(self) -> None:
        self.command("reset")

    def time_us(self) -> int:
        return int(self.command("time"))

    def stop(self) -> None:
        process = self._process
        if process is None:
            return
        try:
            assert process.stdin is not None
            process.stdin.write("quit\n")
            process.stdin.flush()
            process.wait(timeout=3)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()
        self._process = None

    def __enter__(self) -> GridProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def board_pins(board: str) -> tuple[list[str], list[str]]:
    """The row and column pins of a board from pins.h, as port letter and bit ("D4", "C0", ...)."""
    text = (firmware_dir() / "reed_grid" / "pins.h").read_text()
    blocks = re.findall(r"#define GRID_ROW_PINS \{([^}]*)\}\s*#define GRID_COL_PINS \{([^}]*)\}", text)
    if len(blocks) != 2:
        raise RuntimeError("pins.h: expected a Mega block and an Uno/Nano block")
    rows, cols = blocks[0] if board == "mega" else blocks[1]
    ports = _port_map(board)
    analog0 = 54 if board == "mega" else 14

    def number(name: str) -> int:
        name = name.strip()
        return analog0 + int(name[1:]) if name.startswith("A") else int(name)

    return [ports[number(p)] for p in rows.split(",")], [ports[number(p)] for p in cols.split(",")]


def _port_map(board: str) -> dict[int, str]:
    """Arduino pin number to port and bit, from the core's variant file (Mega) or the Uno's fixed layout."""
    if board != "mega":
        return {pin: ("D", "B", "C")[(pin >= 8) + (pin >= 14)] + str(pin - (0, 8, 14)[(pin >= 8) + (pin >= 14)])
                for pin in range(20)}
    text = (CORE_ROOT / "variants" / "mega" / "pins_arduino.h").read_text()
    return {int(n): f"{port}{bit}" for port, bit, n in re.findall(r"//\s*P([A-L])\s*(\d)\s*\*\*\s*(\d+)\s*\*\*", text)}


def simavr_grid(board: str, build_dir: Path, realtime: bool = False) -> GridProcess:
    """A (not yet started) harness running the board's firmware from build_dir."""
    if board not in BOARDS:
        raise ValueError(f"unknown board {board!r} (known: {', '.join(BOARDS)})")
    rows, cols = board_pins(board)
    argv = [str(build_dir / "grid_harness"), "-m", BOARDS[board], "-f", str(build_dir / board / "reed_grid.elf"),
            "-r", ",".join(rows), "-c", ",".join(cols)] + (["-t"] if realtime else [])
    return GridProcess(argv, *SIZES[board])


def virtual_grid(rows: int = 8, cols: int = 8) -> GridProcess:
    """The pure-Python virtual grid (companion.sim.virtual_grid) behind the same control interface."""
    argv = [sys.executable, "-m", "companion.sim.virtual_grid", "--rows", str(rows), "--cols", str(cols)]
    return GridProcess(argv, rows, cols)
