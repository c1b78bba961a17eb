"""The production server: cheroot, CherryPy's WSGI server, inside the companion's own process.

Why cheroot: it is pure Python (installs from a wheel on a Pi), it runs in a thread of the process that also runs
the table (the demo's twin, the sensors), and it writes each chunk an app yields straight to the socket with
chunked encoding, so every SSE message leaves at once; a write to a phone that went away fails and frees the thread.
Each open stream holds one worker thread, so the pool is sized for the phones plus the page's requests, and the hub
refuses streams beyond that (503) rather than letting page requests queue behind them.
"""

from __future__ import annotations

import threading

from cheroot.wsgi import Server
from flask import Flask

from companion.web.hub import Hub


class WebServer:
    def __init__(self, app: Flask, hub: Hub, host: str = "127.0.0.1", port: int = 8080, threads: int = 48) -> None:
        self.hub = hub
        hub.max_streams = max(1, threads - 8)  # threads left over for the page, the API and the health check
        self._server = Server((host, port), app, numthreads=threads, server_name="orrery", timeout=30)
        self._server.shutdown_timeout = 2
        self._thread: threading.Thread | None = None

    @property
    def host(self) -> str:
        return str(self._server.bind_addr[0])

    @property
    def port(self) -> int:
        return int(self._server.bind_addr[1])

    def start(self) -> WebServer:
        """Bind (port 0 picks a free one) and serve in a background thread."""
        self.hub.closed = False  # a table may be served again after a stop (a restart keeps its log and hub)
        self._server.prepare()
        self._thread = threading.Thread(target=self._server.serve, name="web-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.hub.close()  # end the streams first: their threads return to the pool and the pool can stop
        self._server.stop()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> WebServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
