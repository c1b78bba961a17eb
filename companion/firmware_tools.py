"""The reed grid's firmware from the host: build it with Debian's gcc-avr and arduino-core-avr (firmware/Makefile),
flash it with avrdude through the board's bootloader, and check that the board then answers the handshake.

The simulator (companion.sim.simavr_grid) builds through `build_all` here, so the Pi and the tests compile the same
way. The sources are the checkout's firmware/ or, in an installed environment, <venv>/share/orrery/firmware, where
deploy/install.sh copies them.
"""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from companion.errors import UserError

CHECKOUT_FIRMWARE = Path(__file__).resolve().parent.parent / "firmware"
INSTALLED_FIRMWARE = Path(sys.prefix) / "share" / "orrery" / "firmware"
CORE_ROOT = Path("/usr/share/arduino/hardware/arduino/avr")
BOARDS = {"nano": "atmega328p", "uno": "atmega328p", "mega": "atmega2560"}
SIZES = {"nano": (8, 8), "uno": (8, 8), "mega": (16, 16)}
BUILD_TOOLS = ("make", "avr-gcc", "avr-g++", "avr-objcopy", "avr-size")
BUILD_PACKAGES = "gcc-avr avr-libc arduino-core-avr make"
# The name deploy/install.sh's udev rule gives the grid, whichever USB serial number it enumerates as.
STABLE_PORT = "/dev/orrery-grid"


@dataclass(frozen=True)
class Bootloader:
    """How avrdude talks to a board's bootloader, as the Arduino IDE's boards.txt has it."""

    programmer: str
    bauds: tuple[int, ...]  # tried in order: Nanos sold before 2018 carry the old bootloader at 57600


BOOTLOADERS = {
    "uno": Bootloader("arduino", (115200,)),
    "nano": Bootloader("arduino", (115200, 57600)),
    "mega": Bootloader("wiring", (115200,)),
}


class BuildError(RuntimeError):
    """make failed; the message carries the end of its output."""


def firmware_dir() -> Path:
    for candidate in (CHECKOUT_FIRMWARE, INSTALLED_FIRMWARE):
        if (candidate / "Makefile").is_file():
            return candidate
    raise UserError(f"firmware: no sources in {CHECKOUT_FIRMWARE} or {INSTALLED_FIRMWARE}; run deploy/install.sh")


def pin_names(board: str) -> tuple[list[str], list[str]]:
    """The row and column pins of a board ("mega", or "uno" for the Uno and Nano) as the Arduino prints them (D22,
    A0, ...), from firmware/reed_grid/pins.h: the wiring plan and the schematics name what the firmware drives."""
    import re

    text = (firmware_dir() / "reed_grid" / "pins.h").read_text()
    blocks = re.findall(r"#define GRID_ROW_PINS \{([^}]*)\}\s*#define GRID_COL_PINS \{([^}]*)\}", text)
    if len(blocks) != 2:
        raise UserError("firmware/reed_grid/pins.h: expected a Mega block and an Uno/Nano block")
    rows, cols = blocks[0] if board == "mega" else blocks[1]

    def name(pin: str) -> str:
        pin = pin.strip()
        return pin if pin.startswith("A") else f"D{pin}"

    return [name(p) for p in rows.split(",")], [name(p) for p in cols.split(",")]


def make(build_dir: Path, *targets: str) -> None:
    """Runs firmware/Makefile with BUILD=build_dir (incremental); BuildError with the end of the log on failure."""
    result = subprocess.run(
        ["make", "-C", str(firmware_dir()), f"BUILD={build_dir.resolve()}", *targets], capture_output=True, text=True
    )
    if result.returncode != 0:
        raise BuildError(f"firmware build failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")


def build_all(build_dir: Path) -> Path:
    """The three firmwares and the simulator's harness, as the tests and the twin use them; returns build_dir."""
    make(build_dir, "all")
    return build_dir


def build_board(board: str, build_dir: Path) -> Path:
    """One board's firmware; returns its Intel hex file. Missing tools or a failed compile are one-line UserErrors."""
    _check_board(board)
    missing = [tool for tool in BUILD_TOOLS if shutil.which(tool) is None]
    if missing or not (CORE_ROOT / "cores" / "arduino").is_dir():
        what = ", ".join(missing) if missing else f"the Arduino core in {CORE_ROOT}"
        raise UserError(f"firmware build: {what} missing (Debian: sudo apt install {BUILD_PACKAGES})")
    build_dir.mkdir(parents=True, exist_ok=True)
    log = build_dir / "build.log"
    try:
        make(build_dir, str((build_dir / board / "reed_grid.elf").resolve()))
    except BuildError as error:
        log.write_text(str(error))
        raise UserError(f"firmware build: the {board} build failed; the compiler's output is in {log}") from None
    return build_dir / board / "reed_grid.hex"


def avrdude_command(board: str, port: str, hex_file: Path, baud: int) -> list[str]:
    """The Arduino IDE's upload command: -D because the bootloader erases each page as it writes it."""
    loader = BOOTLOADERS[board]
    return [
        "avrdude",
        "-p",
        BOARDS[board],
        "-c",
        loader.programmer,
        "-P",
        port,
        "-b",
        str(baud),
        "-D",
        "-U",
        f"flash:w:{hex_file}:i",
    ]


def may_open(port: str, command: str) -> None:
    """A serial port this user may not open is one line naming the group that may (dialout on Debian)."""
    if os.access(port, os.R_OK | os.W_OK):
        return
    info = os.stat(port)
    if info.st_mode & 0o060 == 0o060:
        group = grp.getgrgid(info.st_gid).gr_name
        raise UserError(
            f"{command}: {port}: permission denied: only root and the group {group} may open it (sudo "
            f"usermod -aG {group} $USER, then log in again)"
        )
    raise UserError(
        f"{command}: {port}: permission denied: only {pwd.getpwuid(info.st_uid).pw_name} may open it "
        "(run the command with sudo)"
    )


def flash_preflight(board: str, port: str) -> None:
    """What flashing needs before anything is built: a known board, avrdude, and the port."""
    _check_board(board)
    if shutil.which("avrdude") is None:
        raise UserError("firmware flash: avrdude is not installed (Debian: sudo apt install avrdude)")
    if not Path(port).exists():
        raise UserError(f"firmware flash: no serial port {port} (is the Arduino plugged in? see ls /dev/serial/by-id)")
    may_open(port, "firmware flash")


def flash(board: str, port: str, hex_file: Path) -> int:
    """Writes hex_file through the bootloader (avrdude verifies it by reading it back); returns the baud that
    worked. The service must not hold the port meanwhile: avrdude and the link would read each other's bytes."""
    flash_preflight(board, port)
    reason = ""
    for baud in BOOTLOADERS[board].bauds:
        result = subprocess.run(avrdude_command(board, port, hex_file, baud), capture_output=True, text=True)
        if result.returncode == 0:
            return baud
        errors = [line for line in result.stderr.splitlines() if "error" in line and "OS error" not in line]
        reason = errors[-1].strip() if errors else f"exit {result.returncode}"
        if "not in sync" not in result.stderr and "not responding" not in result.stderr:
            break  # the bootloader answered and something else failed: another baud will not help
    raise UserError(
        f"firmware flash: avrdude could not flash {port} as a {board} ({reason}); check --board, and stop anything "
        f"holding the port (sudo systemctl stop orrery)"
    )


def check_handshake(port: str, board: str | None = None, timeout: float = 8.0):
    """Opens the port with the host link and waits for the firmware's hello; a board given must match its matrix.
    The wait covers the reset that opening the port causes and the bootloader's pause before the sketch starts."""
    from companion.sensing.reed import ReedLink

    if not Path(port).exists():
        raise UserError(f"firmware check: no serial port {port}")
    may_open(port, "firmware check")
    with ReedLink(port) as link:
        deadline = time.monotonic() + timeout
        while link.info is None and time.monotonic() < deadline:
            time.sleep(0.02)
        hello = link.info
    if hello is None:
        raise UserError(
            f"firmware check: no handshake on {port} within {timeout:g} s (is the reed-grid firmware flashed, "
            f"and is nothing else holding the port?)"
        )
    if board is not None and (hello.rows, hello.cols) != SIZES[board]:
        rows, cols = SIZES[board]
        raise UserError(
            f"firmware check: {port} reports a {hello.rows} x {hello.cols} grid, but a {board} has {rows} x {cols}"
        )
    return hello


def udev_rules() -> str:
    """deploy/60-orrery.rules, which deploy/install.sh installs: every USB id of companion.sensing.usb_ids gets the
    dialout group and the stable name."""
    from companion.sensing.usb_ids import USB_IDS

    lines = [
        "# Written by `companion firmware udev-rule` from companion/sensing/usb_ids.py: the reed grid's Arduino as "
        f"{STABLE_PORT}.",
        "# Bridge chips (CH340, CP2102, FTDI) are generic: with two such devices plugged in, the last one to appear",
        "# gets the name. The companion does not rely on it: it finds the grid by probing (`companion grid ports`).",
    ]
    for entry in sorted(USB_IDS, key=lambda u: (u.vid, u.pid)):
        lines.append(f"# {entry.name}")
        lines.append(
            f'SUBSYSTEM=="tty", ATTRS{{idVendor}}=="{entry.vid:04x}", ATTRS{{idProduct}}=="{entry.pid:04x}", '
            f'SYMLINK+="{STABLE_PORT.removeprefix("/dev/")}", GROUP="dialout", MODE="0660"'
        )
    return "\n".join(lines) + "\n"


def _check_board(board: str) -> None:
    if board not in BOARDS:
        raise UserError(f"firmware: unknown board {board!r} (known: {', '.join(BOARDS)})")
