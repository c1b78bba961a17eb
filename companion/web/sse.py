"""The Server-Sent Events wire format: one message is `event:`, optional `id:` and `data:` lines, then a blank line."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


def message(event: str, data: Any, event_id: int | str | None = None) -> bytes:
    """One SSE message. JSON never holds a raw newline, so the data always fits one `data:` line."""
    return raw_message(event, json.dumps(data, separators=(",", ":")), event_id)


def raw_message(event: str, data: str, event_id: int | str | None = None) -> bytes:
    """One SSE message whose data is JSON text already (on one line)."""
    head = f"event: {event}\n" if event_id is None else f"event: {event}\nid: {event_id}\n"
    return f"{head}data: {data}\n\n".encode()


def comment(text: str) -> bytes:
    """A comment line: browsers ignore it, but it keeps proxies and phones from dropping an idle stream."""
    return f": {text}\n\n".encode()


def retry(milliseconds: int) -> bytes:
    """How long a browser waits before it reconnects a dropped stream."""
    return f"retry: {milliseconds}\n\n".encode()


def event_id(log: str, entry_id: int) -> str:
    """An announcement's SSE id: the log's identity and the entry's id, so that an id from another log (the table's
    database replaced or reset) is told apart from one of this log, whatever its number."""
    return f"{log}-{entry_id}" if log else str(entry_id)


@dataclass(frozen=True)
class Position:
    """Where a phone's stream stands: after this entry, of this log (None: a bare number, the page's ?after=)."""

    log: str | None
    entry_id: int


def parse_last_id(value: str | None) -> Position | None:
    """A Last-Event-ID or ?after= value (`LOG-N` or `N`); None when absent; ValueError when it is neither."""
    if value is None or value == "":
        return None
    log, dash, number = value.rpartition("-")
    if len(value) > 64 or (dash and not log.isalnum()) or not number.isdigit():
        raise ValueError(value)
    return Position(log or None, int(number))


def chunk(data: bytes) -> bytes:
    """`data` as one HTTP/1.1 chunk, as a stream's body is sent (it has no length)."""
    return b"%x\r\n%s\r\n" % (len(data), data)
