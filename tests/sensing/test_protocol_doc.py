"""firmware/PROTOCOL.md is complete enough to implement from: its own example frames and commands are what the
host's parser and the firmware's command rules make of them, and its frame-type table is one table."""

from __future__ import annotations

import re
from pathlib import Path

from companion.sensing import frames

PROTOCOL = (Path(__file__).resolve().parents[2] / "firmware" / "PROTOCOL.md").read_text()


def _examples() -> dict[str, str]:
    """The Examples table: frame -> what the document says it means."""
    section = PROTOCOL.split("### Examples", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^\| `([^`]+)` \| (.+) \|$", section, re.M))


def test_every_example_frame_parses_and_means_what_the_document_says():
    examples = _examples()
    assert len(examples) == 9
    parsed = {line: frames.parse_frame(line.encode()) for line in examples}
    kinds = {type(frame).__name__ for frame in parsed.values()}
    assert kinds == {"Hello", "Snapshot", "Changes", "Heartbeat", "Pong", "Error"}
    for line, frame in parsed.items():
        means = examples[line]
        if isinstance(frame, frames.Snapshot):
            closed = {tuple(map(int, pair)) for pair in re.findall(r"\((\d+), (\d+)\)", means)}
            assert frame.closed == closed and f"at {frame.ms} ms" in means, line
        elif isinstance(frame, frames.Changes):
            said = re.findall(r"\((\d+), (\d+)\) (closed|opened)", means)
            assert [((int(r), int(c)), word == "closed") for r, c, word in said] == list(frame.items), line
            assert f"at {frame.ms} ms" in means
        elif isinstance(frame, frames.Hello):
            assert (
                f"debounce {frame.debounce_ms} ms" in means
                or f"now {frame.debounce_ms} ms" in means
                or (frame.reason == "ask" and "answer to `I`" in means)
            ), line
        elif isinstance(frame, frames.Heartbeat | frames.Pong):
            assert f"at {frame.ms} ms" in means, line
        elif isinstance(frame, frames.Error):
            assert frame.code == "crc" and "CRC" in means


def test_the_snapshot_bitmap_paragraph_reads_as_the_parser_does():
    paragraph = PROTOCOL.split("**The snapshot's bitmap**", 1)[1].split("\n\n", 1)[0]
    assert "`0580000000000010`, row 0 is `05` (columns 0 and 2 closed)" in " ".join(paragraph.split())
    eight = frames.decode_bitmap("0580000000000010", 8, 8)
    assert eight == {(0, 0), (0, 2), (1, 7), (7, 4)}
    assert frames.decode_bitmap("0201" + "0000" * 15, 16, 16) == {(0, 0), (0, 9)}


def test_the_example_commands_carry_the_crc_the_host_sends():
    commands = re.findall(r"`([ISDP](?: [0-9A-Za-z]+)? \*[0-9A-F]{4})`", PROTOCOL.split("## Commands", 1)[1])
    assert len(commands) == 4
    for line in commands:
        command = frames.parse_command(line.encode())
        assert command.letter and not command.error, line
        body = line.rsplit(" *", 1)[0]
        assert frames.encode_command(command.letter, command.argument).decode().strip() == line, body


def test_the_frame_type_table_is_one_table_with_every_type():
    table = PROTOCOL.split("| Type | Fields | When |", 1)[1].split("\n\n", 1)[0]
    rows = [line for line in table.splitlines()[1:] if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows] == ["H", "S", "C", "K", "P", "E"]
    assert all(line.startswith("|") for line in table.splitlines()[1:])
