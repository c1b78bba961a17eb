"""The production server: aiohttp on one asyncio loop, in a thread of the companion's own process.

Why an event loop and not a pool of threads (cheroot, waitress): a phone's live stream is open for hours and an
idle connection, or one that sends its request a byte at a time, must cost a few KB and never a thread, or a guest
on the Wi-Fi holding a few dozen of them would take the page away from everyone. So the loop does all the waiting:
it accepts, shakes hands (TLS, a handshake per connection with a deadline of its own, never in the accept path),
reads a request's head and body with deadlines and size limits, and keeps every stream (events.py). Only a
complete, small request reaches the Flask app, on a small pool of threads (wsgi.py), and it answers at once.

Connections are counted by client address: one address gets a few dozen at most, whatever it does with them, so
one guest cannot fill the table's file descriptors or its stream slots. Home Assistant serves its phones the same
way (aiohttp on the Pi, no proxy in front).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import ssl
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler
from flask import Flask

from companion.web.context import KEY
from companion.web.door import Door
from companion.web.events import EVENTS_PATH, stream
from companion.web.hub import Hub
from companion.web.shell import Shell
from companion.web.wsgi import Lane, call_app

LANES = ("check", "picture")  # heavy work, each kind in a lane of one worker: a game set up; a picture decoded


@dataclass(frozen=True)
class Limits:
    """What one connection, one address and the whole table may hold (the defaults suit a table of phones)."""

    head_seconds: float = 10.0  # a request's line and headers, from the connection or the previous answer
    body_seconds: float = 10.0  # its body
    handshake_seconds: float = 5.0  # a TLS handshake
    per_address: int = 32  # open connections from one client address
    connections: int = 768  # open connections in all (a Pi's default open-file limit is 1024)
    streams_per_address: int = 6  # live streams from one client address (a phone has one per open page)
    streams: int = 256  # live streams in all: an idle one costs a few KB
    backlog: int = 128  # connections the kernel queues before the loop accepts them


@dataclass(frozen=True)
class Https:
    """Where to serve https, and the certificate (with its key) to present."""

    port: int
    cert: Path
    key: Path


def _refusal(message: str) -> bytes:
    body = json.dumps({"error": message}).encode()
    head = (f"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            "Retry-After: 5\r\nConnection: close\r\n\r\n")  # fmt: skip
    return head.encode() + body


class _Gate:
    """Counts open connections by address, for every listener of one server."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.open: Counter[str] = Counter()

    def admit(self, address: str) -> str | None:
        """None when the connection may stay, or why it may not."""
        if sum(self.open.values()) >= self.limits.connections:
            return "the table is serving as many connections as it can; try again shortly"
        if self.open[address] >= self.limits.per_address:
            return f"too many connections from {address}; close some pages and try again"
        self.open[address] += 1
        return None

    def release(self, address: str) -> None:
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]


class _Connection(RequestHandler):
    """aiohttp's connection, with an address cap and a deadline on every request's head: the head must be complete
    within `head_seconds` of the connection (for the first request) or of the previous answer, or the connection is
    closed. aiohttp reads heads in the loop, so a slow one holds no thread; the deadline frees its socket too."""

    def __init__(self, gate: _Gate, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._gate = gate
        self._address: str | None = None
        self._deadline: asyncio.TimerHandle | None = None
        self.busy = False  # a request's head has arrived and its handler runs

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if peer else ""
        refused = self._gate.admit(address)
        if refused is not None:
            transport.write(_refusal(refused))  # type: ignore[attr-defined]
            transport.close()
            return
        self._address = address
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: BaseException | None) -> None:
        if self._address is None:
            return  # refused at the door: aiohttp never knew it
        self._gate.release(self._address)
        self._address = None
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if not self.busy and self._deadline is None:
            self._arm()  # the first bytes of the next request on a kept-alive connection
        super().data_received(data)

    def started(self) -> None:
        self.busy = True
        self._disarm()

    def finished(self) -> None:
        """The answer is written: the next request's head (perhaps already arriving) has the same deadline, and a
        connection left idle that long is closed (a browser opens another when it needs one)."""
        self.busy = False
        self._disarm()
        self._arm()

    def _arm(self) -> None:
        self._deadline = asyncio.get_running_loop().call_later(self._gate.limits.head_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.busy and self.transport is not None:
            self.transport.close()


class WebServer:
    """The table's app on http (and https with a certificate); `threads` runs the Flask app, the loop does the rest."""

    def __init__(
        self, app: Flask, hub: Hub, host: str = "127.0.0.1", port: int = 8080, threads: int = 8,
        https: Https | None = None, limits: Limits | None = None,
    ) -> None:  # fmt: skip
        self.app, self.hub, self.limits = app, hub, limits or Limits()
        hub.max_streams, hub.per_address = self.limits.streams, self.limits.streams_per_address
        self._bind = (host, port)
        self._https = https
        self._context: ssl.SSLContext | None = None
        if https is not None:
            self._context = ssl.create_default_context(purpose=ssl.Purpose.CLIENT_AUTH)
            self._context.load_cert_chain(str(https.cert), str(https.key))
        self._threads = max(1, threads)
        self._pool = ThreadPoolExecutor(self._threads, thread_name_prefix="web-app")
        self._replay = ThreadPoolExecutor(2, thread_name_prefix="web-replay")  # store pages for the streams
        self._lanes = {name: Lane(name) for name in LANES}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._servers: list[asyncio.base_events.Server] = []
        self._sockets: list[socket.socket] = []
        self._lowlevel: web.Server | None = None
        self._gate = _Gate(self.limits)

    @property
    def host(self) -> str:
        return self._bind[0]

    @property
    def port(self) -> int:
        return int(self._sockets[0].getsockname()[1]) if self._sockets else self._bind[1]

    @property
    def https_port(self) -> int | None:
        return int(self._sockets[1].getsockname()[1]) if len(self._sockets) > 1 else None

    def reload_certificate(self) -> None:
        """Present the certificate files as they are now (made again for a new address) from the next handshake on.
        They are checked in a context of their own first, then loaded into the live one by the loop itself, between
        two handshakes, so no handshake sees half a change."""
        if self._context is None or self._https is None or self._loop is None:
            return
        cert, key = str(self._https.cert), str(self._https.key)
        ssl.create_default_context(purpose=ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert, key)
        context = self._context
        asyncio.run_coroutine_threadsafe(_load_chain(context, cert, key), self._loop).result(10)

    def start(self) -> WebServer:
        """Bind (port 0 picks a free one) and serve on a background thread."""
        self.hub.closed = False  # a table may be served again after a stop (a restart keeps its log and hub)
        self._sockets = [_listen(self._bind[0], self._bind[1], self.limits.backlog)]
        try:
            if self._https is not None:
                self._sockets.append(_listen(self._bind[0], self._https.port, self.limits.backlog))
        except BaseException:
            for sock in self._sockets:
                sock.close()  # the one that bound gives its port back
            raise
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()
        failed: list[BaseException] = []
        self._thread = threading.Thread(target=self._run, args=(ready, failed), name="web-server", daemon=True)
        self._thread.start()
        ready.wait(30)
        if failed:
            self.stop()
            raise failed[0]
        return self

    def _run(self, ready: threading.Event, failed: list[BaseException]) -> None:
        loop = self._loop
        assert loop is not None
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._open())
        except BaseException as error:  # said by start(), in the caller's thread
            failed.append(error)
            for sock in self._sockets:
                sock.close()
            return
        finally:
            ready.set()
        loop.run_forever()
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()

    async def _open(self) -> None:
        extension = self.app.extensions[KEY]
        table, settings = extension.table, extension.settings
        pool, replay, limits, app, lanes = self._pool, self._replay, self.limits, self.app, self._lanes
        door, shell = Door(app, table), Shell()

        async def handle(request: web.BaseRequest) -> web.StreamResponse:
            connection = request.protocol
            assert isinstance(connection, _Connection)
            connection.started()
            try:
                if request.path == EVENTS_PATH and request.method == "GET":
                    return await stream(request, table, settings, replay)
                page = shell.answer(request)  # (a response is a mapping, and an empty one is false: no `or`)
                return page if page is not None else await call_app(request, app, pool, limits, door, lanes)
            finally:
                connection.finished()

        lowlevel = web.Server(handle, handler_cancellation=True)
        self._lowlevel = lowlevel
        gate, loop = self._gate, asyncio.get_running_loop()

        def factory() -> _Connection:
            # lingering_time=0: the rest of a refused body is not read (aiohttp would wait 10 s for it).
            return _Connection(gate, lowlevel, loop=loop, access_log=None, keepalive_timeout=limits.head_seconds,
                               max_line_size=4096, max_field_size=4096, lingering_time=0)  # fmt: skip

        for index, sock in enumerate(self._sockets):
            secure = self._context if index == 1 else None
            self._servers.append(await asyncio.get_running_loop().create_server(
                factory, sock=sock, backlog=limits.backlog, ssl=secure,
                ssl_handshake_timeout=limits.handshake_seconds if secure else None))  # fmt: skip

    def stop(self) -> None:
        """End every stream, then stop serving: a second stop does nothing."""
        self.hub.close()
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if loop.is_running():
            with contextlib.suppress(TimeoutError, RuntimeError):
                asyncio.run_coroutine_threadsafe(self._close(), loop).result(5)
            loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)
        if not thread.is_alive() and not loop.is_closed():
            loop.close()  # the thread closes it after serving; not when it failed to start
        self._loop = self._thread = None
        self._servers, self._sockets = [], []
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._replay.shutdown(wait=False, cancel_futures=True)
        for lane in self._lanes.values():
            lane.shutdown()
        self._pool = ThreadPoolExecutor(self._threads, thread_name_prefix="web-app")  # for a start after a stop
        self._replay = ThreadPoolExecutor(2, thread_name_prefix="web-replay")
        self._lanes = {name: Lane(name) for name in LANES}

    async def _close(self) -> None:
        for server in self._servers:
            server.close()
        if self._lowlevel is not None:
            await self._lowlevel.shutdown(2.0)
        for server in self._servers:
            await server.wait_closed()

    def __enter__(self) -> WebServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


async def _load_chain(context: ssl.SSLContext, cert: str, key: str) -> None:
    context.load_cert_chain(cert, key)


def _listen(host: str, port: int, backlog: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart binds the same port again at once
    try:
        sock.bind((host, port))
        sock.listen(backlog)
    except BaseException:
        sock.close()
        raise
    sock.setblocking(False)
    return sock
