"""The fan-out from the table to every open stream.

Two kinds of news. Announcements are store entries: their message carries the entry's id (with the log's identity)
as the SSE id, and a stream that reconnects is replayed from the store, so nothing committed is ever lost.
Everything else (the state after an entry, the open question, the mismatch warning, the sensors) is *transient*:
it has no SSE id, only the latest value of each kind matters, and every stream gets the latest values when it
(re)connects.

The table announces from its own threads; the streams live on the server's event loop. Each message is encoded once,
as the very bytes that go on the wire (an HTTP chunk), and handed to the loop in one call per announcement: the loop
writes the same bytes to every live stream's socket in turn, without waking a coroutine per stream, so a hundred
idle streams add a few microseconds each to a phone's delivery, not a task switch each. A stream that is still
being replayed from the store keeps what arrives meanwhile in a small list of its own, and goes live once that list
is written. A stream whose phone reads too slowly (its socket's buffer past `BACKLOG` bytes) is closed rather than
buffered without bound: the browser reconnects with its Last-Event-ID and catches up from the store, so memory
stays flat and still nothing is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Literal

from companion.web import sse

QUEUE = 512  # messages a stream may fall behind while it is replayed before it is closed
BACKLOG = 128 * 1024  # bytes a live stream's socket may hold unread before it is closed


class TooManyStreams(Exception):
    """Every stream slot is taken, in all or for this client's address."""


@dataclass(eq=False)
class Client:
    """One open stream. While it is replayed, the messages that arrive wait here, each with the entry id it carries
    (None: transient); once live, messages go straight to its socket (`send`)."""

    address: str = ""
    loop: asyncio.AbstractEventLoop | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)  # set (by the loop) when messages wait or it ends
    ended: bool = False  # set when the hub ends the stream (too slow a reader, or the server stopping)
    _waiting: deque[tuple[int | None, bytes]] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _wire: asyncio.WriteTransport | None = None  # the socket, once live
    _chunked: bool = True  # the answer's body is HTTP/1.1 chunks

    def offer(self, messages: list[tuple[int | None, bytes]]) -> Literal["live", "wake", "kept", "behind"]:
        """From any thread: "live" when the stream is live (the caller sends the messages); else they wait here,
        "wake" when it was waiting for nothing (`wake` it), "kept" when it has messages waiting still; "behind" (and
        nothing kept) when it is that far behind."""
        with self._lock:
            if self._wire is not None:
                return "live"
            if len(self._waiting) + len(messages) > QUEUE:
                return "behind"
            was_waiting = bool(self._waiting)
            self._waiting.extend(messages)
            return "kept" if was_waiting else "wake"

    def go_live(self, wire: asyncio.WriteTransport, chunked: bool) -> list[tuple[int | None, bytes]]:
        """On the loop: what waits still, oldest first; when nothing does, the stream is live from now on (and the
        list is empty)."""
        with self._lock:
            taken = list(self._waiting)
            self._waiting.clear()
            self.ready.clear()
            if not taken and not self.ended:
                self._wire, self._chunked = wire, chunked
        return taken

    @property
    def live(self) -> bool:
        return self._wire is not None

    def send(self, message: bytes, chunk: bytes | None = None) -> None:
        """On the loop, once live: the message (`chunk`: the same as an HTTP chunk) onto the socket now, or the
        stream ended when its phone has left that much unread."""
        wire = self._wire
        if self.ended or wire is None or wire.is_closing():
            return
        if wire.get_write_buffer_size() > BACKLOG:
            self.end()
            return
        wire.write((chunk or sse.chunk(message)) if self._chunked else message)

    def end(self) -> None:
        with self._lock:
            self.ended = True
            self._waiting.clear()
        wake([self])


def wake(clients: list[Client]) -> None:
    """Wake the streams' loops, once per loop however many streams it keeps: one system call, not one each."""
    by_loop: dict[asyncio.AbstractEventLoop | None, list[asyncio.Event]] = {}
    for client in clients:
        by_loop.setdefault(client.loop, []).append(client.ready)
    for loop, events in by_loop.items():
        if loop is None:
            _set_all(events)
            continue
        with contextlib.suppress(RuntimeError):  # a stopped loop: its streams are gone with it
            loop.call_soon_threadsafe(_set_all, events)


def _set_all(events: list[asyncio.Event]) -> None:
    for event in events:
        event.set()


def _send_all(clients: list[Client], message: bytes) -> None:
    chunk = sse.chunk(message)  # framed once for every stream
    for client in clients:
        client.send(message, chunk)


class Hub:
    def __init__(self, max_streams: int = 256, per_address: int = 6) -> None:
        self.max_streams = max_streams
        self.per_address = per_address
        self._clients: set[Client] = set()
        self._by_address: Counter[str] = Counter()
        self._latest: dict[str, bytes] = {}  # transient kind -> its latest message
        self._made: dict[str, int] = {}  # transient kind -> the number of its latest message, when numbered
        self._lock = threading.Lock()
        self._order = threading.RLock()
        self.closed = False
        self.sent = 0  # messages handed to streams, for the health check and the benchmark

    def join(self, address: str = "", loop: asyncio.AbstractEventLoop | None = None) -> Client:
        with self._lock:
            if self.closed:
                raise TooManyStreams("the server is shutting down")
            if len(self._clients) >= self.max_streams:
                raise TooManyStreams(f"all {self.max_streams} stream slots are taken")
            if self._by_address[address] >= self.per_address:
                raise TooManyStreams(f"{address} already has {self.per_address} live streams open; close a page")
            client = Client(address, loop)
            self._clients.add(client)
            self._by_address[address] += 1
            return client

    def leave(self, client: Client) -> None:
        with self._lock:
            if client in self._clients:
                self._clients.discard(client)
                self._by_address[client.address] -= 1
                if self._by_address[client.address] <= 0:
                    del self._by_address[client.address]

    @property
    def streams(self) -> int:
        with self._lock:
            return len(self._clients)

    def latest(self) -> list[bytes]:
        """The latest message of each transient kind, for a stream that has just (re)connected."""
        with self._lock:
            return list(self._latest.values())

    def announce(self, entry_id: int, data: object, log: str = "") -> None:
        """An entry, the moment it is committed."""
        self._fan_out([(entry_id, sse.message("entry", data, sse.event_id(log, entry_id)))])

    def transient(self, kind: str, data: object, made: int | None = None) -> None:
        """The latest `data` of its kind, to every stream. `made`: its number where values of the kind are made on
        several threads at once (numbered before each is made): one older than a value already sent is dropped, so
        no phone is left showing it."""
        message = sse.message(kind, data)
        with self._order:  # kept and sent in one order: the latest kept is the last every stream got
            if made is not None:
                if made < self._made.get(kind, made):
                    return
                self._made[kind] = made
            with self._lock:
                self._latest[kind] = message
            self._fan_out([(None, message)])

    def close(self) -> None:
        """End every stream (the server is stopping)."""
        with self._lock:
            self.closed = True
            clients = list(self._clients)
        for client in clients:
            client.end()

    def _fan_out(self, messages: list[tuple[int | None, bytes]]) -> None:
        # One announcement at a time, whichever thread makes it: every stream gets them in the same order.
        with self._order:
            with self._lock:
                clients = list(self._clients)
                self.sent += len(clients) * len(messages)
            live: dict[asyncio.AbstractEventLoop | None, list[Client]] = {}
            woken = []
            for client in clients:
                offered = client.offer(messages)
                if offered == "live":
                    live.setdefault(client.loop, []).append(client)
                elif offered == "wake":
                    woken.append(client)
                elif offered == "behind":
                    client.end()
            payload = b"".join(message for _, message in messages)
            for loop, streams in live.items():
                if loop is None:
                    continue  # live streams are always on a loop
                with contextlib.suppress(RuntimeError):  # a stopped loop: its streams are gone with it
                    loop.call_soon_threadsafe(_send_all, streams, payload)
            wake(woken)
