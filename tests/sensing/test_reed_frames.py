"""The frame parser: exact on good frames, and fuzzed (hypothesis) so that damage never crashes it nor turns into a
switch state the firmware did not have."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.sensing import frames
from companion.sensing.reed import ReedLink


def test_crc_matches_the_firmware_check_value():
    assert frames.crc16(b"123456789") == 0x29B1


def test_a_frame_from_the_firmware_parses():
    # Taken from the Nano firmware running in simavr.
    assert frames.parse_frame(b"0D C 00000ADF 12+ *A073\r") == frames.Changes(13, 0xADF, (((1, 2), True),))
    hello = frames.parse_frame(b"00 H 1 1.0.0 8x8 20 boot *6404")
    assert hello == frames.Hello(0, 1, "1.0.0", 8, 8, 20, "boot")
    snap = frames.parse_frame(b"0E S 00000BB8 8x8 0004000000000000 *6546")
    assert snap.closed == {(1, 2)}


def test_round_trip_of_every_kind():
    closed = frozenset({(0, 0), (15, 15), (7, 9)})
    line = frames.encode_frame(3, "S", f"0000000A 16x16 {frames.encode_bitmap(closed, 16, 16)}")
    assert frames.parse_frame(line.rstrip(b"\n")).closed == closed
    for kind, fields in [("K", "00000001"), ("P", "00000002 tok"), ("E", "crc"), ("C", "00000003 00+ FF-")]:
        frames.parse_frame(frames.encode_frame(255, kind, fields).rstrip(b"\r\n"))


@pytest.mark.parametrize(
    "body",
    [
        b"00 C 00000001 12+ 12-",
        b"00 S 00000000 8x8 00",
        b"00 H 1 x 0x8 20 boot",
        b"00 S 00000000 3x3 FFF",
        b"00 X 00000000",
        b"00 E nope",
    ],
)
def test_checked_but_malformed_frames_are_refused(body):
    with pytest.raises(frames.FrameError):
        frames.parse_frame(body + b" *%04X" % frames.crc16(body))


def test_commands_follow_the_firmware_rules():
    assert frames.parse_command(b"I") == frames.Command("I")
    assert frames.parse_command(b"D 50").error == "crc"  # settings need a checked line
    assert frames.parse_command(frames.encode_command("D", "50").strip()) == frames.Command("D", "50")
    assert frames.parse_command(frames.encode_command("D", "5000").strip()).error == "arg"
    assert frames.parse_command(b"Q").error == "cmd"


_SAMPLE = [
    frames.encode_frame(7, "C", "0000ABCD 01+ 3F- A2+").rstrip(b"\r\n"),
    frames.encode_frame(8, "S", "00001000 8x8 0102030405060708").rstrip(b"\r\n"),
    frames.encode_frame(9, "H", "1 1.0.0 16x16 20 boot").rstrip(b"\r\n"),
]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(_SAMPLE), st.data())
def test_any_single_damaged_byte_is_caught(line, data):
    index = data.draw(st.integers(0, len(line) - 1))
    value = data.draw(st.integers(0, 255).filter(lambda v: v != line[index]))
    damaged = line[:index] + bytes([value]) + line[index + 1 :]
    with pytest.raises(frames.FrameError):
        frames.parse_frame(damaged)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_never_crash_the_parser(data):
    with contextlib.suppress(frames.FrameError):
        frames.parse_frame(data)


class _Model:
    """A firmware stand-in emitting the frames of a random walk of switch states."""

    def __init__(self) -> None:
        self.seq = 0
        self.state: frozenset = frozenset()
        self.history = [self.state]

    def frame(self, kind: str, fields: str) -> bytes:
        line = frames.encode_frame(self.seq, kind, fields).rstrip(b"\r\n")
        self.seq = (self.seq + 1) & 0xFF
        return line


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sets(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=4),
            st.sampled_from(["none", "flip", "drop", "cut", "junk"]),
            st.integers(0, 200),
        ),
        max_size=25,
    )
)
def test_a_damaged_stream_never_yields_a_state_the_firmware_did_not_have(steps):
    link = ReedLink("unused")
    model = _Model()
    feed = [model.frame("H", "1 1.0.0 8x8 20 boot"), model.frame("S", "00000000 8x8 " + "0" * 16)]
    for toggles, damage, where in steps:
        if toggles:
            model.state = model.state ^ frozenset(toggles)
            model.history.append(model.state)
            items = " ".join(f"{r:X}{c:X}{'+' if (r, c) in model.state else '-'}" for r, c in sorted(toggles))
            line = model.frame("C", f"00000001 {items}")
        else:
            line = model.frame("S", "00000002 8x8 " + frames.encode_bitmap(model.state, 8, 8))
        if damage == "flip":
            i = where % len(line)
            line = line[:i] + bytes([line[i] ^ (1 + where % 255)]) + line[i + 1 :]
        elif damage == "drop":
            line = b""
        elif damage == "cut":
            line = line[: where % len(line)]
        elif damage == "junk":
            feed.append(bytes([where]) * 3)
        feed.append(line)
    for line in feed:
        link._handle(line, 0.0)
        # Whatever it holds is a state the model really had (and only while in step is it vouched for).
        assert link.occupancy() in model.history
