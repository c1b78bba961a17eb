"""GET /events: the Server-Sent Events stream, kept by the server's event loop (see hub.py for what carries an id
and what is replayed).

A stream costs a few KB while it waits, never a thread. A phone that reconnects is replayed from the store a page
at a time, each page read on a thread and written before the next is read, so memory stays bounded whatever the
log's length (the write waits while the phone's socket is full). A position from another log (the table's
database replaced or reset) gets a fresh start: the game in play from its first entry, after a `reset` message.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import Executor
from typing import TYPE_CHECKING

from aiohttp import HttpVersion11, web

from companion.web import sse
from companion.web.hub import TooManyStreams
from companion.web.wsgi import refuse

if TYPE_CHECKING:
    from companion.web.context import WebSettings
    from companion.web.table import Table

EVENTS_PATH = "/events"
PAGE = 500  # entries read from the store at a time for a replay
HEADERS = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def start_after(table: Table, position: sse.Position | None) -> tuple[int | None, bool]:
    """The entry id to replay after (None: from now on), and whether the phone's position is from another log."""
    if position is None:
        return None, False
    log, last = table.logbook.position()
    if (position.log is not None and position.log != log) or position.entry_id > last:
        return table.logbook.first_entry() - 1, True
    return position.entry_id, False


async def stream(request: web.BaseRequest, table: Table, settings: WebSettings, pages: Executor) -> web.StreamResponse:
    # A reconnecting browser sends Last-Event-ID; a page opening its first stream says where its log ends (?after=).
    try:
        position = sse.parse_last_id(request.headers.get("Last-Event-ID") or request.query.get("after"))
    except ValueError:
        return refuse("Last-Event-ID and after must be entry ids (whole numbers)")
    loop = asyncio.get_running_loop()
    try:
        client = table.hub.join(request.remote or "", loop)  # before the replay: nothing committed slips between
    except TooManyStreams as error:
        return refuse(f"{error}; try again shortly", 503)
    try:
        after, fresh = await loop.run_in_executor(pages, start_after, table, position)
        response = web.StreamResponse(headers=HEADERS)
        await response.prepare(request)
        await response.write(sse.retry(settings.retry_ms))
        last = after or 0  # without a position the stream starts from now: whatever waits since join() is new
        if fresh:
            await response.write(sse.message("reset", {"log": table.logbook.position()[0]}))
        while after is not None:
            count, last, messages = await loop.run_in_executor(pages, table.logbook.replay_page, after, PAGE)
            await response.write(messages)  # waits while the phone's socket is full: one page in memory at a time
            after = last if count == PAGE else None
        for message in table.hub.latest():
            await response.write(message)
        # What arrived meanwhile, until nothing waits; from then on the hub writes to the socket itself (hub.py).
        # An entry both replayed and live is sent once.
        chunked = request.version >= HttpVersion11  # aiohttp sends a body of no known length in chunks on 1.1
        while waiting := client.go_live(request.transport, chunked):  # type: ignore[arg-type]
            data = b"".join(message for entry_id, message in waiting if entry_id is None or entry_id > last)
            if data:
                await response.write(data)
        while not client.ended:
            try:
                async with asyncio.timeout(settings.heartbeat):
                    await client.ready.wait()  # set when the stream ends (or by a wake meant for its replay)
            except TimeoutError:
                client.send(sse.comment("keep-alive"))
            client.ready.clear()
        return response
    finally:
        table.hub.leave(client)
