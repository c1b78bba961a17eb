"""The reed protocol's parsers under atheris (libFuzzer), run by `companion bench fuzz` in a process of its own.

The oracle is stricter than "no crash": a line the parser accepts must carry a CRC that matches its bytes, and the
frame it gives must survive a round trip through the canonical encoding unchanged, so damage can never become a
switch state. Half of the mutations re-sign the damaged line with a correct CRC; without that the fuzzer would
almost never get past the checksum into the field parsers, which is where a false state would hide.
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports():
    from companion.sensing import frames

SEEDS = (
    b"0D C 00000ADF 12+ *A073",
    b"00 H 1 1.0.0 8x8 20 boot *6404",
    b"0E S 00000BB8 8x8 0004000000000000 *6546",
)


def _fields(frame: frames.Frame) -> tuple[str, str]:
    """The type letter and fields the firmware would send for this frame."""
    if isinstance(frame, frames.Hello):
        size = f"{frame.rows}x{frame.cols}"
        return "H", f"{frame.protocol} {frame.firmware} {size} {frame.debounce_ms} {frame.reason}"
    if isinstance(frame, frames.Snapshot):
        bitmap = frames.encode_bitmap(frame.closed, frame.rows, frame.cols)
        return "S", f"{frame.ms:08X} {frame.rows}x{frame.cols} {bitmap}"
    if isinstance(frame, frames.Changes):
        items = " ".join(f"{r:X}{c:X}{'+' if closed else '-'}" for (r, c), closed in frame.items)
        return "C", f"{frame.ms:08X} {items}"
    if isinstance(frame, frames.Heartbeat):
        return "K", f"{frame.ms:08X}"
    if isinstance(frame, frames.Pong):
        return "P", f"{frame.ms:08X} {frame.token}"
    return "E", frame.code


def check_line(line: bytes) -> None:
    """Raises AssertionError if the parser accepts a line it should not, or turns it into something else."""
    try:
        frame = frames.parse_frame(line)
    except frames.FrameError:
        return
    body = line.rstrip(b"\r")[:-6]
    assert frames.crc16(body) == int(line.rstrip(b"\r")[-4:], 16), f"accepted a line whose CRC does not match: {line!r}"
    kind, fields = _fields(frame)
    again = frames.parse_frame(frames.encode_frame(frame.seq, kind, fields).rstrip(b"\r\n"))
    assert again == frame, f"{line!r} parsed as {frame!r}, which does not round-trip"
    if isinstance(frame, frames.Snapshot):
        assert all(r < frame.rows and c < frame.cols for r, c in frame.closed), f"switch outside the matrix: {line!r}"


def check_command(line: bytes) -> None:
    command = frames.parse_command(line)
    assert (command.letter == "") == (command.error != ""), f"a command both accepted and refused: {line!r}"
    if command.letter == "D":
        assert command.argument.isdigit() and int(command.argument) <= 1000, f"debounce out of range: {line!r}"


def _one(data: bytes) -> None:
    check_line(data[:200])
    check_command(data[:40])


def _mutate(data: bytes, max_size: int, seed: int) -> bytes:
    mutated = atheris.Mutate(data, max_size)
    if seed % 2 and len(mutated) > 6:
        body = mutated.rstrip(b"\r")
        body = body[:-6] if body[-6:-4] == b" *" else body
        mutated = body + b" *%04X" % frames.crc16(body)
    return mutated


def main(argv: list[str]) -> None:
    atheris.Setup(argv, _one, custom_mutator=_mutate)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
