"""GET /events: the Server-Sent Events stream (see hub.py for what carries an id and what is replayed)."""

from __future__ import annotations

import queue
from collections.abc import Iterator

from flask import Blueprint, Response, request

from companion.web import sse
from companion.web.context import settings, table
from companion.web.errors import BadInput
from companion.web.hub import CLOSE, Client, TooManyStreams
from companion.web.table import Table

events = Blueprint("events", __name__)


@events.get("/events")
def stream() -> Response:
    # A reconnecting browser sends Last-Event-ID; a page opening its first stream says where its log ends (?after=).
    try:
        after = sse.parse_last_id(request.headers.get("Last-Event-ID") or request.args.get("after"))
    except ValueError:
        raise BadInput("Last-Event-ID and after must be entry ids (whole numbers)") from None
    current = table()
    try:
        client = current.hub.join()  # before the replay is read, so nothing committed meanwhile slips between
    except TooManyStreams as error:
        raise BadInput(f"{error}; try again shortly", 503) from None
    options = settings()
    body = _messages(current, client, after, options.heartbeat, options.retry_ms)
    return Response(
        body,
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Connection": "keep-alive"},
    )


def _messages(current: Table, client: Client, after: int | None, heartbeat: float, retry_ms: int) -> Iterator[bytes]:
    try:
        yield sse.retry(retry_ms)
        last = after or 0  # without an id the stream starts from now: whatever is queued since join() is new
        if after is not None:
            for entry in current.entries(after):
                yield sse.message("entry", entry, entry["id"])
                last = entry["id"]
        yield from current.hub.latest()
        while not client.ended:
            try:
                entry_id, message = client.messages.get(timeout=heartbeat)
            except queue.Empty:
                yield sse.comment("keep-alive")
                continue
            if message == CLOSE:
                return
            if entry_id is not None and entry_id <= last:
                continue  # already sent in the replay
            yield message
    finally:
        current.hub.leave(client)
