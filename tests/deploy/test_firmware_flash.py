"""`companion firmware flash` end to end without an Arduino: avrdude writes the Uno build through the STK500 v1
protocol to an Optiboot stand-in on a pty; the bytes it wrote are then booted in simavr behind that same pty, and
the command's handshake check must find the reed grid there. A wrong image, a protocol slip or a broken check fails.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import threading
import tty
from pathlib import Path

import pytest

from companion.firmware_tools import build_all
from companion.sim.simavr_grid import GridProcess, board_pins

ROOT = Path(__file__).resolve().parents[2]
INSYNC, OK, NOSYNC, EOP = 0x14, 0x10, 0x15, 0x20
ATMEGA328P_SIGNATURE = bytes([0x1E, 0x95, 0x0F])


class Optiboot:
    """The Uno's bootloader as avrdude meets it: STK500 v1 commands over a serial port, a 32 KiB flash written a
    page at a time and read back for avrdude's verify. Leaving programming mode "resets" the board: `booted` is set
    and the bytes from the pty go to whatever `run_application` connects."""

    def __init__(self) -> None:
        self.master, self.slave = pty.openpty()  # the slave stays open here, so avrdude closing it is no hang-up
        tty.setraw(self.slave)
        self.port = os.ttyname(self.slave)
        self.flash = bytearray(b"\xff" * 32 * 1024)
        self.address = 0
        self.booted = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _read(self, count: int) -> bytes:
        data = b""
        while len(data) < count:
            if self._stop.is_set():
                raise EOFError
            if select.select([self.master], [], [], 0.05)[0]:
                data += os.read(self.master, count - len(data))
        return data

    def _serve(self) -> None:
        try:
            while not self.booted.is_set():
                self._command(self._read(1)[0])
        except (EOFError, OSError):
            return

    def _command(self, command: int) -> None:
        reply = b""
        if command == 0x41:  # GET_PARAMETER: Optiboot 8.0 reports major 8, minor 0, anything else 3
            reply = bytes([{0x81: 8, 0x82: 0}.get(self._read(1)[0], 3)])
        elif command == 0x42:  # SET_DEVICE: ignored, as Optiboot does
            self._read(20)
        elif command == 0x45:  # SET_DEVICE_EXT: a count byte, then the count less one
            self._read(self._read(1)[0] - 1)
        elif command == 0x55:  # LOAD_ADDRESS, in words
            low, high = self._read(2)
            self.address = (low | high << 8) * 2
        elif command == 0x56:  # UNIVERSAL (an SPI instruction): answered with 0
            self._read(4)
            reply = b"\x00"
        elif command == 0x64:  # PROG_PAGE
            high, low, memory = self._read(3)
            data = self._read(high << 8 | low)
            assert memory == ord("F"), f"write to memory {memory!r}"
            self.flash[self.address : self.address + len(data)] = data
        elif command == 0x74:  # READ_PAGE
            high, low, _memory = self._read(3)
            reply = bytes(self.flash[self.address : self.address + (high << 8 | low)])
        elif command == 0x75:  # READ_SIGN
            reply = ATMEGA328P_SIGNATURE
        elif command not in (0x30, 0x50, 0x51):  # GET_SYNC, ENTER_PROGMODE, LEAVE_PROGMODE take no arguments
            raise AssertionError(f"STK500 command 0x{command:02x} is not one avrdude sends to Optiboot")
        if self._read(1)[0] != EOP:
            os.write(self.master, bytes([NOSYNC]))
            return
        os.write(self.master, bytes([INSYNC]) + reply + bytes([OK]))
        if command == 0x51:
            self.booted.set()

    def image(self) -> bytes:
        """The flash as written, without the erased tail."""
        return bytes(self.flash).rstrip(b"\xff")

    def run_application(self, upstream: str) -> None:
        """Joins the pty to the booted firmware's port, both ways."""
        far = os.open(upstream, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(far)

        def relay() -> None:
            while not self._stop.is_set():
                for fd in select.select([self.master, far], [], [], 0.05)[0]:
                    data = os.read(fd, 4096)
                    os.write(far if fd == self.master else self.master, data)

        threading.Thread(target=relay, daemon=True).start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)


def elf_from_image(image: bytes, path: Path) -> Path:
    """The flashed bytes as an ELF with one .text section, the form simavr loads."""
    raw = path.with_suffix(".bin")
    raw.write_bytes(image)
    subprocess.run(
        [
            "avr-objcopy",
            "-I",
            "binary",
            "-O",
            "elf32-avr",
            "-B",
            "avr",
            "--rename-section",
            ".data=.text,contents,alloc,load,readonly,code",
            str(raw),
            str(path),
        ],
        check=True,
        capture_output=True,
    )
    return path


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_all(tmp_path_factory.mktemp("firmware")) / "grid_harness"


def test_flash_writes_the_uno_build_through_the_bootloader_and_finds_the_grid(tmp_path, harness):
    board = Optiboot()
    grid: GridProcess | None = None
    command = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion",
            "firmware",
            "flash",
            "--port",
            board.port,
            "--board",
            "uno",
            "--out",
            str(tmp_path / "build"),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert board.booted.wait(120), "avrdude never left programming mode"
        hex_file = tmp_path / "build" / "uno" / "reed_grid.hex"
        built = tmp_path / "built.bin"
        subprocess.run(["avr-objcopy", "-I", "ihex", "-O", "binary", str(hex_file), str(built)], check=True)
        assert board.image() == built.read_bytes().rstrip(b"\xff")
        # The board restarts into what was written: that image, not the build, runs behind the port.
        rows, cols = board_pins("uno")
        grid = GridProcess(
            [
                str(harness),
                "-m",
                "atmega328p",
                "-f",
                str(elf_from_image(board.image(), tmp_path / "flashed.elf")),
                "-r",
                ",".join(rows),
                "-c",
                ",".join(cols),
                "-t",
            ],
            8,
            8,
        )
        grid.start()
        board.run_application(grid.port)
        grid.go()
        out, err = command.communicate(timeout=60)
        assert command.returncode == 0, err
        assert out.splitlines() == [
            f"built {hex_file}",
            f"flashed {board.port} (uno, 115200 baud)",
            f"handshake on {board.port}: firmware 1.0.0, protocol 1, 8 x 8 switches, debounce 20 ms",
        ]
    finally:
        if command.poll() is None:
            command.kill()
        if grid is not None:
            grid.stop()
        board.stop()
