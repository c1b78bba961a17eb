"""The fan-out from the table to every open stream.

Two kinds of news. Announcements are store entries: their message carries the entry id as the SSE id, and a
stream that reconnects is replayed from the store, so nothing committed is ever lost. Everything else (the state
after an entry, the open question, the mismatch warning, the sensors) is *transient*: it has no SSE id, only the
latest value of each kind matters, and every stream gets the latest values when it (re)connects.

A stream whose phone reads too slowly is closed rather than buffered without bound: the browser reconnects with its
Last-Event-ID and catches up from the store, so memory stays flat and still nothing is lost.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass, field

from companion.web import sse

CLOSE = b""  # put in a client's queue to end its stream


class TooManyStreams(Exception):
    """Every stream slot is taken (each open stream holds one server thread)."""


@dataclass(eq=False)
class Client:
    """One open stream: the messages waiting for it, each with the entry id it carries (None: transient)."""

    messages: queue.Queue[tuple[int | None, bytes]] = field(default_factory=lambda: queue.Queue(maxsize=512))
    ended: bool = False  # set when the hub ends the stream (too slow a reader, or the server stopping)


class Hub:
    def __init__(self, max_streams: int = 32) -> None:
        self.max_streams = max_streams
        self._clients: set[Client] = set()
        self._latest: dict[str, bytes] = {}  # transient kind -> its latest message
        self._lock = threading.Lock()
        self.closed = False
        self.sent = 0  # messages handed to streams, for the health check and the benchmark

    def join(self) -> Client:
        with self._lock:
            if self.closed:
                raise TooManyStreams("the server is shutting down")
            if len(self._clients) >= self.max_streams:
                raise TooManyStreams(f"all {self.max_streams} stream slots are taken")
            client = Client()
            self._clients.add(client)
            return client

    def leave(self, client: Client) -> None:
        with self._lock:
            self._clients.discard(client)

    @property
    def streams(self) -> int:
        with self._lock:
            return len(self._clients)

    def latest(self) -> list[bytes]:
        """The latest message of each transient kind, for a stream that has just (re)connected."""
        with self._lock:
            return list(self._latest.values())

    def announce(self, entry_id: int, data: object) -> None:
        self._fan_out(entry_id, sse.message("entry", data, entry_id))

    def transient(self, kind: str, data: object) -> None:
        message = sse.message(kind, data)
        with self._lock:
            self._latest[kind] = message
        self._fan_out(None, message)

    def close(self) -> None:
        """End every stream (the server is stopping)."""
        with self._lock:
            self.closed = True
            clients = list(self._clients)
        for client in clients:
            _drop(client)

    def _fan_out(self, entry_id: int | None, message: bytes) -> None:
        with self._lock:
            clients = list(self._clients)
            self.sent += len(clients)
        for client in clients:
            try:
                client.messages.put_nowait((entry_id, message))
            except queue.Full:
                _drop(client)


def _drop(client: Client) -> None:
    """End a stream: empty its queue and leave only CLOSE in it."""
    client.ended = True
    while True:
        try:
            client.messages.get_nowait()
        except queue.Empty:
            break
    client.messages.put_nowait((None, CLOSE))
