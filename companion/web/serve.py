"""Serving one table: build the app, start cheroot, print the address with the token and its QR code, serve until
Ctrl-C. `companion demo` uses it for the twin's table and `companion serve` for a real one."""

from __future__ import annotations

import socket
import sys
import threading
from typing import TextIO

from companion.web.app import create_app
from companion.web.context import WebSettings
from companion.web.join import join_url, qr_terminal
from companion.web.server import WebServer
from companion.web.table import Table


def start_server(
    table: Table, host: str = "127.0.0.1", port: int = 8080, settings: WebSettings | None = None, threads: int = 48
) -> WebServer:
    """The table's app under cheroot, serving in a background thread (port 0: any free port)."""
    server = WebServer(create_app(table, settings), table.hub, host, port, threads)
    try:
        return server.start()
    except OSError as error:
        from companion.errors import UserError

        raise UserError(f"cannot serve on {host}:{port}: {error.strerror or error}") from None


def page_host(bound: str) -> str:
    """The address a phone on the same network uses: this machine's LAN address when bound to every interface."""
    if bound not in ("0.0.0.0", "::", ""):
        return bound
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)}
    except OSError:
        addresses = set()
    lan = sorted(a for a in addresses if not a.startswith("127."))
    return lan[0] if lan else "127.0.0.1"


def announce(server: WebServer, table: Table, out: TextIO = sys.stdout, qr: bool = True) -> str:
    """Print the page's address with the token, and its QR code; returns the address."""
    url = join_url(f"http://{page_host(server.host)}:{server.port}/", table.token)
    print(f"Phones: open {url}" + (" or scan:" if qr else ""), file=out, flush=True)
    if qr:
        print(qr_terminal(url), file=out, flush=True)
    print(f"Watch only: http://{page_host(server.host)}:{server.port}/   (Ctrl-C stops the companion)", file=out,
          flush=True)
    return url


def serve(
    table: Table,
    host: str = "0.0.0.0",
    port: int = 8080,
    *,
    until: threading.Event | None = None,
    out: TextIO = sys.stdout,
    qr: bool = True,
) -> None:
    """Serve the table in the foreground until Ctrl-C (or `until` is set), then stop every stream and the server."""
    server = start_server(table, host, port)
    announce(server, table, out, qr)
    stop = until or threading.Event()
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        print("Stopping.", file=out, flush=True)
    finally:
        server.stop()
