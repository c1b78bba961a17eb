"""The real reed-grid firmware in simavr, behind a pseudo-terminal, with switches a program can close and open.

Builds the firmware and the harness (firmware/Makefile: gcc-avr, avr-libc, arduino-core-avr, libsimavr-dev) and
runs firmware/sim/grid_harness with the row and column pins read from firmware/reed_grid/pins.h, so the simulated
wiring is the wiring the sketch was built for. `GridProcess` is the control side shared with the virtual grid.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

from companion.firmware_tools import BOARDS, CHECKOUT_FIRMWARE, CORE_ROOT, SIZES, build_all, pin_names

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
        self._process = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
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
        """The reset pin pulled low, as the reset button or the host's DTR does: the bootloader runs first."""
        self.command("reset")

    def power_cycle(self) -> None:
        """Unplugged and plugged in again: a power-on reset."""
        self.command("power")

    def resets(self) -> tuple[int, int, int]:
        """How often the chip was reset by DTR (or its reset pin), by its watchdog, and powered up."""
        dtr, watchdog, power = (int(n) for n in self.command("resets").split())
        return dtr, watchdog, power

    def chatter(self, row: int, col: int, period_us: int, toggles: int) -> None:
        """Toggles a switch every period_us of the grid's own time, `toggles` times."""
        self.command(f"chatter {row} {col} {period_us} {toggles}")

    def noise(self, period_us: int) -> None:
        """Flips every switch of the matrix every period_us (0 stops)."""
        self.command(f"noise {period_us}")

    def ripple(self, period_us: int) -> None:
        """Every period_us flips one column's switches in every row, the next column each time (0 stops)."""
        self.command(f"ripple {period_us}")

    def stuck(self, row: int, col: int, state: str) -> None:
        """A switch that stays "closed" (magnetised or welded reed), "open" (cracked glass), or "free" again."""
        self.command(f"stuck {row} {col} {state}")

    def slow_column(self, col: int, fall_us: float, rise_us: float) -> None:
        """A column line with capacitance: it reads low fall_us after a closed switch pulls it, and reads high again
        rise_us after the pull stops (the time its pull-up needs to charge the line)."""
        self.command(f"rc {col} {round(fall_us)} {round(rise_us)}")

    def row_line(self, extra_us: float) -> None:
        """Row lines with capacitance: a row released to float (not driven high first) holds the columns of its closed
        switches low extra_us longer, as their pull-ups must charge the row's line through the diodes."""
        self.command(f"rowrc {round(extra_us)}")

    def diode(self, row: int, col: int, state: str) -> None:
        """The diode of switch (row, col): "ok", "reversed", "shorted" (or bridged by solder) or "open"."""
        self.command(f"diode {row} {col} {state}")

    def fights(self) -> tuple[int, int, str]:
        """How often a pin driven high was joined to a pin driven low (through closed switches and conducting diodes),
        the microseconds it lasted in all, and the pins of the last such fight ("-" for none)."""
        count, us, pins, _ = self.command("fights").split()
        return int(count), int(us), pins

    def column_drives(self) -> int:
        """How often the firmware drove a column pin low (it does so only to look for a faulty diode)."""
        return int(self.command("fights").split()[3])

    def scans(self) -> list[tuple[int, int]]:
        """(cycles one scan took, cycles since the scan before) for each scan since the last call."""
        return [(int(d), int(g)) for d, g in (item.split(":") for item in self.command("scans").split())]

    def time_us(self) -> int:
        return int(self.command("time"))

    def run_for(self, microseconds: int) -> None:
        """Waits until the board has run this long on its own clock (a loaded machine runs it slower than real time)."""
        until = self.time_us() + microseconds
        while self.time_us() < until:
            time.sleep(0.01)

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


class BoardClock:
    """Wall time and the simulated board's own time since it was made. On a loaded host the simulation runs slower
    than the clock on the wall, so what the board does (its bootloader's wait, its heartbeats) is timed on its own
    clock, and what the host does is timed in wall time no longer than the board's: the time it would have taken
    beside a board running at real speed (a simulation running faster than real time changes nothing)."""

    def __init__(self, grid: GridProcess) -> None:
        self.grid = grid
        self.wall0, self.board0 = time.monotonic(), grid.time_us()

    def elapsed(self) -> tuple[float, float]:
        """Seconds of wall time and of the board's time since the clock was made."""
        board = (self.grid.time_us() - self.board0) / 1e6
        return time.monotonic() - self.wall0, board

    def host_seconds(self) -> tuple[float, str]:
        """The elapsed time at real speed (the lesser of the two clocks), and both clocks, for a failure message."""
        wall, board = self.elapsed()
        return min(wall, board), f"{wall:.2f} s of wall time, {board:.2f} s of the board's"


def board_pins(board: str) -> tuple[list[str], list[str]]:
    """The row and column pins of a board from pins.h, as port letter and bit ("D4", "C0", ...)."""
    rows, cols = pin_names(board)
    ports = _port_map(board)
    analog0 = 54 if board == "mega" else 14

    def number(name: str) -> int:
        return analog0 + int(name[1:]) if name.startswith("A") else int(name[1:])

    return [ports[number(p)] for p in rows], [ports[number(p)] for p in cols]


def _port_map(board: str) -> dict[int, str]:
    """Arduino pin number to port and bit, from the core's variant file (Mega) or the Uno's fixed layout."""
    if board != "mega":
        return {
            pin: ("D", "B", "C")[(pin >= 8) + (pin >= 14)] + str(pin - (0, 8, 14)[(pin >= 8) + (pin >= 14)])
            for pin in range(20)
        }
    text = (CORE_ROOT / "variants" / "mega" / "pins_arduino.h").read_text()
    return {int(n): f"{port}{bit}" for port, bit, n in re.findall(r"//\s*P([A-L])\s*(\d)\s*\*\*\s*(\d+)\s*\*\*", text)}


# Each simulated board: the firmware build it runs and its entry in the Arduino core's boards.txt, which names its
# bootloader and fuses. "nano-old" is a Nano sold before 2018 (ATmegaBOOT at 57600 baud); newer ones and the Uno carry
# optiboot, which firmware/Makefile builds from Debian's source (see there why not Debian's prebuilt file).
SIM_BOARDS = {
    "mega": ("mega", "mega.menu.cpu.atmega2560"),
    "uno": ("uno", "uno"),
    "nano": ("nano", "nano.menu.cpu.atmega328"),
    "nano-old": ("nano", "nano.menu.cpu.atmega328old"),
}
REBUILT_BOOTLOADERS = {"optiboot/optiboot_atmega328.hex": Path("boot") / "optiboot_atmega328.hex"}


def board_bootloader(entry: str, build_dir: Path) -> tuple[Path, int]:
    """A board's bootloader file and high fuse, as boards.txt gives them (the fuse's BOOTSZ bits size the boot
    section, its BOOTRST bit starts the chip there)."""
    text = (CORE_ROOT / "boards.txt").read_text()

    def field(name: str) -> str:
        match = re.search(rf"^{re.escape(entry)}\.bootloader\.{name}=(\S+)", text, re.M)
        if not match:
            raise RuntimeError(f"boards.txt: no bootloader.{name} for {entry}")
        return match[1]

    name = field("file")
    rebuilt = REBUILT_BOOTLOADERS.get(name)
    hex_file = build_dir / rebuilt if rebuilt else CORE_ROOT / "bootloaders" / name
    return hex_file, int(field("high_fuses"), 16)


def simavr_grid(
    board: str, build_dir: Path, realtime: bool = False, bootloader: bool = True, auto_reset: bool = True
) -> GridProcess:
    """A (not yet started) harness running the board's firmware from build_dir behind the board's own bootloader
    (bootloader=False: the sketch alone, as a programmer would flash it); every opening of its port resets the chip
    as a board's DTR line does, unless auto_reset is False (the capacitor workaround)."""
    if board not in SIM_BOARDS:
        raise ValueError(f"unknown board {board!r} (known: {', '.join(SIM_BOARDS)})")
    firmware, entry = SIM_BOARDS[board]
    rows, cols = board_pins(firmware)
    argv = [
        str(build_dir / "grid_harness"),
        "-m",
        BOARDS[firmware],
        "-f",
        str(build_dir / firmware / "reed_grid.elf"),
        "-r",
        ",".join(rows),
        "-c",
        ",".join(cols),
    ]
    if bootloader:
        hex_file, fuse = board_bootloader(entry, build_dir)
        argv += ["-b", str(hex_file), "-F", f"{fuse:02X}"]
    argv += (["-t"] if realtime else []) + ([] if auto_reset else ["-n"])
    return GridProcess(argv, *SIZES[firmware])


def virtual_grid(rows: int = 8, cols: int = 8) -> GridProcess:
    """The pure-Python virtual grid (companion.sim.virtual_grid) behind the same control interface."""
    argv = [sys.executable, "-m", "companion.sim.virtual_grid", "--rows", str(rows), "--cols", str(cols)]
    return GridProcess(argv, rows, cols)
