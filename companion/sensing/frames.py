"""The reed grid's serial protocol (firmware/PROTOCOL.md): checked text frames, parsed and built.

A frame is one line, "SS T fields *CCCC\\r\\n": a two-hex-digit sequence number, a type letter, the fields and a
CRC-16/CCITT-FALSE of everything before " *". Parsing is strict: anything that is not exactly a valid frame raises
FrameError, so a damaged line can never turn into a switch state.
"""

from __future__ import annotations

import binascii
import re
from dataclasses import dataclass

PROTOCOL_VERSION = 1
MAX_LINE = 128  # longer than any frame (a 16 x 16 snapshot is 86 bytes)
ERROR_CODES = ("crc", "cmd", "arg", "long")

Switch = tuple[int, int]  # (row, column)


class FrameError(ValueError):
    """A line that is not a valid frame. `kind` is "crc" (checksum mismatch) or "format" (anything else)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE, the firmware's checksum: crc16(b"123456789") == 0x29B1."""
    return binascii.crc_hqx(data, 0xFFFF)


@dataclass(frozen=True)
class Hello:
    seq: int
    protocol: int
    firmware: str
    rows: int
    cols: int
    debounce_ms: int
    reason: str  # "boot", "ask" (answer to I) or "set" (answer to D)


@dataclass(frozen=True)
class Snapshot:
    seq: int
    ms: int
    rows: int
    cols: int
    closed: frozenset[Switch]


@dataclass(frozen=True)
class Changes:
    seq: int
    ms: int
    items: tuple[tuple[Switch, bool], ...]  # ((row, col), closed) as of firmware time ms


@dataclass(frozen=True)
class Heartbeat:
    seq: int
    ms: int


@dataclass(frozen=True)
class Pong:
    seq: int
    ms: int
    token: str


@dataclass(frozen=True)
class Error:
    seq: int
    code: str


Frame = Hello | Snapshot | Changes | Heartbeat | Pong | Error

_FRAME = re.compile(rb"([0-9A-F]{2}) ([A-Z]) (.*) \*([0-9A-F]{4})")
_HELLO = re.compile(r"(\d{1,3}) ([0-9A-Za-z.+-]{1,16}) (\d{1,2})x(\d{1,2}) (\d{1,4}) (boot|ask|set)")
_SNAPSHOT = re.compile(r"([0-9A-F]{8}) (\d{1,2})x(\d{1,2}) ([0-9A-F]+)")
_CHANGES = re.compile(r"([0-9A-F]{8})((?: [0-9A-F]{2}[+-]){1,16})")
_CLOCK = re.compile(r"([0-9A-F]{8})")
_PONG = re.compile(r"([0-9A-F]{8}) ([0-9A-Za-z]{1,8})")
_ERROR = re.compile("(" + "|".join(ERROR_CODES) + ")")


def parse_frame(line: bytes) -> Frame:
    """One line without its line ending (a trailing "\\r" is allowed) as a frame, or FrameError."""
    if line.endswith(b"\r"):
        line = line[:-1]
    if len(line) > MAX_LINE:
        raise FrameError("format", f"line of {len(line)} bytes is longer than any frame")
    match = _FRAME.fullmatch(line)
    if not match:
        raise FrameError("format", f"not a frame: {line[:40]!r}")
    if crc16(line[:-6]) != int(match[4], 16):
        raise FrameError("crc", f"CRC mismatch: {line[:40]!r}")
    seq, kind, fields = int(match[1], 16), match[2].decode(), match[3].decode("ascii", "replace")
    if kind == "H" and (m := _HELLO.fullmatch(fields)):
        rows, cols = int(m[3]), int(m[4])
        _check_size(rows, cols)
        return Hello(seq, int(m[1]), m[2], rows, cols, int(m[5]), m[6])
    if kind == "S" and (m := _SNAPSHOT.fullmatch(fields)):
        rows, cols = int(m[2]), int(m[3])
        _check_size(rows, cols)
        return Snapshot(seq, int(m[1], 16), rows, cols, decode_bitmap(m[4], rows, cols))
    if kind == "C" and (m := _CHANGES.fullmatch(fields)):
        items = tuple(((int(w[0], 16), int(w[1], 16)), w[2] == "+") for w in m[2].split())
        if len({switch for switch, _ in items}) != len(items):
            raise FrameError("format", "a change frame names a switch twice")
        return Changes(seq, int(m[1], 16), items)
    if kind == "K" and (m := _CLOCK.fullmatch(fields)):
        return Heartbeat(seq, int(m[1], 16))
    if kind == "P" and (m := _PONG.fullmatch(fields)):
        return Pong(seq, int(m[1], 16), m[2])
    if kind == "E" and (m := _ERROR.fullmatch(fields)):
        return Error(seq, m[1])
    raise FrameError("format", f"bad {kind!r} frame: {fields[:40]!r}")


_FRAME_START = re.compile(rb"[0-9A-F]{2} [HSCKPE] ")


def next_frame_start(line: bytes) -> int | None:
    """Where a frame could start after the first byte of a damaged line (None: nowhere)."""
    match = _FRAME_START.search(line, 1)
    return match.start() if match else None


def _check_size(rows: int, cols: int) -> None:
    if not (1 <= rows <= 16 and 1 <= cols <= 16):
        raise FrameError("format", f"matrix size {rows}x{cols} is outside 1..16")


def decode_bitmap(text: str, rows: int, cols: int) -> frozenset[Switch]:
    """A snapshot's rows, each (cols + 3) // 4 hex digits with column 0 in the lowest bit."""
    width = (cols + 3) // 4
    if len(text) != rows * width:
        raise FrameError("format", f"snapshot of {len(text)} digits, {rows * width} expected for {rows}x{cols}")
    closed = set()
    for row in range(rows):
        word = int(text[row * width : (row + 1) * width], 16)
        if word >> cols:
            raise FrameError("format", f"snapshot row {row} has columns beyond {cols}")
        closed.update((row, col) for col in range(cols) if word >> col & 1)
    return frozenset(closed)


def encode_bitmap(closed: frozenset[Switch] | set[Switch], rows: int, cols: int) -> str:
    width = (cols + 3) // 4
    words = [0] * rows
    for row, col in closed:
        words[row] |= 1 << col
    return "".join(f"{word:0{width}X}" for word in words)


def encode_frame(seq: int, kind: str, fields: str) -> bytes:
    """A frame as the firmware sends it (the virtual grid speaks through this)."""
    body = f"{seq & 0xFF:02X} {kind} {fields}".encode()
    return body + f" *{crc16(body):04X}\r\n".encode()


def encode_command(letter: str, argument: str = "") -> bytes:
    """A host command with its CRC: b"D 50 *CCCC\\n"."""
    body = (letter + (" " + argument if argument else "")).encode()
    return body + f" *{crc16(body):04X}\n".encode()


@dataclass(frozen=True)
class Command:
    letter: str  # I, S, D, P; "" for a line the firmware answers with an error frame
    argument: str = ""
    error: str = ""  # an ERROR_CODES entry when letter is ""


_COMMAND = re.compile(r"([ISDP])(?: ([0-9A-Za-z]{1,8}))?")


def parse_command(line: bytes) -> Command:
    """A host command line as the firmware reads it (for the virtual grid): the same rules, the same errors."""
    if len(line) > 32:
        return Command("", error="long")
    checked = False
    if len(line) >= 6 and line[-6:-4] == b" *":
        try:
            given = int(line[-4:], 16)
        except ValueError:
            return Command("", error="crc")
        line = line[:-6]
        if crc16(line) != given:
            return Command("", error="crc")
        checked = True
    match = _COMMAND.fullmatch(line.decode("ascii", "replace"))
    if not match:
        return Command("", error="cmd" if line[:1] not in (b"I", b"S", b"D", b"P") else "arg")
    letter, argument = match[1], match[2] or ""
    if letter in "IS" and argument:
        return Command("", error="arg")
    if letter == "D":
        if not checked:
            return Command("", error="crc")
        if not argument.isdigit() or len(argument) > 4 or int(argument) > 1000:
            return Command("", error="arg")
    if letter == "P" and not argument:
        return Command("", error="arg")
    return Command(letter, argument)
