"""Hostile guests on the table's Wi-Fi, for the attack tests and `companion bench web`'s "under attack" row.

Each crowd of guests runs on one thread until stopped, on loopback only, from source addresses of its own
(127.0.N.x: Linux answers the whole of 127/8), so that a real phone on 127.0.0.1 is another client, as on the
Wi-Fi. A guest the table cuts off comes back after a pause, as an attacker's script would.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import selectors
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

# What each kind sends on connecting, and then a little at a time (b"": nothing more). A body flood declares a large
# body (a camera still of 24 MB, a board of 4 MB) and sends it as fast as the table reads it.
FLOOD = b"\0" * 65536
OPENINGS = {
    "slow-headers": (b"GET / HTTP/1.1\r\nHost: table\r\n", b"X-Slow: 1\r\n"),
    "slow-body": (b"POST /api/act HTTP/1.1\r\nHost: table\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 4000\r\n\r\n", b" "),
    "idle-streams": (b"GET /events HTTP/1.1\r\nHost: table\r\n\r\n", b""),
    "silent": (b"", b""),
    "frames": (b"POST /api/camera/frame?still=1 HTTP/1.1\r\nHost: table\r\nContent-Type: image/jpeg\r\n"
               b"Content-Length: 25165824\r\n\r\n", FLOOD),
    "board-checks": (b"POST /api/editor/check HTTP/1.1\r\nHost: table\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 4194304\r\n\r\n", FLOOD),
}  # fmt: skip


@dataclass
class Guests:
    """`count` connections of one kind to 127.0.0.1:`port`, `per_address` of them from each of 127.0.`subnet`.x;
    a slow one sends its next bit every `every` seconds; an idle stream reads (and drops) what it is sent."""

    port: int
    kind: str
    count: int
    subnet: int
    per_address: int = 1
    every: float = 2.0
    head: bytes = b""  # header lines sent with the opening (a guest who holds the token and a phone's key)
    connects: int = 0  # connections made (the first ones and every return after being cut off)
    cut: int = 0  # times the table closed or refused one
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def address(self, index: int) -> str:
        return f"127.0.{self.subnet}.{1 + index // self.per_address}"

    def start(self) -> Guests:
        self._thread = threading.Thread(target=self._run, name=f"guests-{self.kind}", daemon=True)
        self._thread.start()
        return self

    def spawn(self) -> subprocess.Popen:
        """The same crowd in a process of its own, as the guests' own devices would be (for the benchmark, which
        must not share its phones' processor time with them); it runs until ended. A guest's device has a processor
        of its own: here the crowd shares the table's, so it runs at a lower priority than the table and the phones
        (it still gets every idle moment, and its connections cost the server the same)."""
        argv = [sys.executable, "-m", "companion.web.attack", str(self.port), self.kind, str(self.count),
                str(self.subnet), str(self.per_address), str(self.every), self.head.decode()]  # fmt: skip
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)

    def __enter__(self) -> Guests:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        opening, trickle = OPENINGS[self.kind]
        if self.head:
            line, _, rest = opening.partition(b"\r\n")
            opening = line + b"\r\n" + self.head + rest
        selector = selectors.DefaultSelector()
        socks: list[socket.socket | None] = [None] * self.count
        due = [0.0] * self.count  # when each next connects or trickles
        try:
            while not self._stop.is_set():
                now = time.monotonic()
                for i in range(self.count):
                    if due[i] > now:
                        continue
                    sock = socks[i]
                    try:
                        if sock is None:
                            sock = socks[i] = socket.create_connection(("127.0.0.1", self.port), 2,
                                                                       (self.address(i), 0))  # fmt: skip
                            self.connects += 1
                            sock.sendall(opening)
                            sock.setblocking(False)
                            selector.register(sock, selectors.EVENT_READ, i)
                        elif trickle:
                            sock.send(trickle)
                        due[i] = now + self.every
                    except OSError:
                        self._drop(selector, socks, i, due, now)
                for key, _ in selector.select(0.05):
                    i = key.data
                    try:
                        data = socks[i].recv(65536)  # type: ignore[union-attr]
                    except BlockingIOError:
                        continue
                    except OSError:
                        data = b""
                    if not data or trickle:  # closed, or a slow guest answered (refused): it comes back later
                        self._drop(selector, socks, i, due, time.monotonic())
        finally:
            for sock in socks:
                if sock is not None:
                    sock.close()
            selector.close()

    def _drop(self, selector: selectors.BaseSelector, socks: list, i: int, due: list[float], now: float) -> None:
        sock = socks[i]
        if sock is not None:
            with contextlib.suppress(KeyError, ValueError):
                selector.unregister(sock)
            sock.close()
        socks[i] = None
        self.cut += 1
        due[i] = now + self.every  # come back after a pause


def phone_check(port: int, paths: tuple[str, ...] = ("/", "/healthz"), source: str = "127.0.0.1") -> float:
    """A real phone's look at the table: each path fetched on a new connection; the slowest answer's seconds
    (an error or anything but 200 raises)."""
    slowest = 0.0
    for path in paths:
        started = time.monotonic()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=(source, 0))
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            if response.status != 200:
                raise AssertionError(f"GET {path} answered {response.status}")
        finally:
            connection.close()
        slowest = max(slowest, time.monotonic() - started)
    return slowest


def main() -> None:
    port, kind, count, subnet, per_address, every, head = sys.argv[1:8]
    os.nice(10)  # below the table and the phones: see spawn
    guests = Guests(int(port), kind, int(count), int(subnet), int(per_address), float(every), head=head.encode())
    guests._run()  # until the process is ended


if __name__ == "__main__":
    main()
