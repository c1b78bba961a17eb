"""The Server-Sent Events wire format: one message is `event:`, optional `id:` and `data:` lines, then a blank line."""

from __future__ import annotations

import json
from typing import Any


def message(event: str, data: Any, event_id: int | None = None) -> bytes:
    """One SSE message. JSON never holds a raw newline, so the data always fits one `data:` line."""
    lines = [f"event: {event}"]
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.append("data: " + json.dumps(data, separators=(",", ":")))
    return ("\n".join(lines) + "\n\n").encode()


def comment(text: str) -> bytes:
    """A comment line: browsers ignore it, but it keeps proxies and phones from dropping an idle stream."""
    return f": {text}\n\n".encode()


def retry(milliseconds: int) -> bytes:
    """How long a browser waits before it reconnects a dropped stream."""
    return f"retry: {milliseconds}\n\n".encode()


def parse_last_id(value: str | None) -> int | None:
    """A Last-Event-ID or ?after= value as an entry id; None when absent; ValueError when it is not one."""
    if value is None or value == "":
        return None
    number = int(value)  # ValueError for anything else
    if number < 0:
        raise ValueError(value)
    return number
