"""The production server: cheroot, CherryPy's WSGI server, inside the companion's own process.

Why cheroot: it is pure Python (installs from a wheel on a Pi), it runs in a thread of the process that also runs
the table (the demo's twin, the sensors), and it writes each chunk an app yields straight to the socket with
chunked encoding, so every SSE message leaves at once; a write to a phone that went away fails and frees the thread.
Each open stream holds one worker thread, so the pool is sized for the phones plus the page's requests, and the hub
refuses streams beyond that (503) rather than letting page requests queue behind them.

With a certificate the same app is served over https too, on a second port with a pool of its own, by cheroot's
own adapter for Python's ssl module; both share the hub, so a phone's stream is the same on either.
"""

from __future__ import annotations

import socket
import ssl
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cheroot.ssl.builtin import BuiltinSSLAdapter
from cheroot.wsgi import Server
from flask import Flask

from companion.web.hub import Hub

HANDSHAKE_SECONDS = 5.0


@dataclass(frozen=True)
class Https:
    """Where to serve https, and the certificate (with its key) to present."""

    port: int
    cert: Path
    key: Path


class _Adapter(BuiltinSSLAdapter):
    """cheroot shakes hands in its accept loop, so a client that connects and stays silent would hold every other
    phone's handshake for the server's whole timeout (30 s): the handshake gets a few seconds of its own (cheroot
    sets the request timeout again afterwards)."""

    def wrap(self, sock: socket.socket) -> tuple[Any, dict[str, Any]]:
        sock.settimeout(HANDSHAKE_SECONDS)
        return super().wrap(sock)


class _SecureServer(Server):
    """A phone that leaves an https stream ends its TLS session without a goodbye; cheroot logs that as
    "socket.error 8" (SSL_ERROR_EOF) with a traceback, where the same departure over http is silent."""

    def error_log(self, msg: str = "", level: int = 20, traceback: bool = False) -> None:
        if msg != f"socket.error {int(ssl.SSL_ERROR_EOF)}":
            super().error_log(msg, level, traceback)


class WebServer:
    def __init__(
        self, app: Flask, hub: Hub, host: str = "127.0.0.1", port: int = 8080, threads: int = 48,
        https: Https | None = None,
    ) -> None:  # fmt: skip
        self.hub = hub
        hub.max_streams = max(1, threads - 8)  # threads left over for the page, the API and the health check
        self._server = self._cheroot(app, host, port, threads)
        self._secure: Server | None = None
        self._https = https
        if https is not None:
            self._secure = self._cheroot(app, host, https.port, threads, _SecureServer)
            self._secure.ssl_adapter = _Adapter(str(https.cert), str(https.key))
        self._threads: list[threading.Thread] = []

    @staticmethod
    def _cheroot(app: Flask, host: str, port: int, threads: int, kind: type[Server] = Server) -> Server:
        server = kind((host, port), app, numthreads=threads, server_name="orrery", timeout=30)
        server.shutdown_timeout = 2
        return server

    @property
    def host(self) -> str:
        return str(self._server.bind_addr[0])

    @property
    def port(self) -> int:
        return int(self._server.bind_addr[1])

    @property
    def https_port(self) -> int | None:
        return None if self._secure is None else int(self._secure.bind_addr[1])

    def reload_certificate(self) -> None:
        """Present the certificate files as they are now (made again for a new address) from the next handshake on;
        the context is replaced whole, so no handshake ever sees half of a change."""
        if self._secure is None or self._https is None:
            return
        context = ssl.create_default_context(purpose=ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(str(self._https.cert), str(self._https.key))
        self._secure.ssl_adapter.context = context

    def start(self) -> WebServer:
        """Bind (port 0 picks a free one) and serve in background threads."""
        self.hub.closed = False  # a table may be served again after a stop (a restart keeps its log and hub)
        servers = [s for s in (self._server, self._secure) if s is not None]
        try:
            for server in servers:
                server.prepare()
        except BaseException:
            for server in servers:
                server.stop()  # the one that bound gives its port back
            raise
        self._threads = [threading.Thread(target=s.serve, name=f"web-server-{i}", daemon=True)
                         for i, s in enumerate(servers)]  # fmt: skip
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        self.hub.close()  # end the streams first: their threads return to the pool and the pool can stop
        for server in (self._server, self._secure):
            if server is not None:
                server.stop()
        for thread in self._threads:
            thread.join(timeout=5)

    def __enter__(self) -> WebServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
