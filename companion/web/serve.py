"""Serving one table: the web's view of the table (`web_table`), the app under the server, the address with the token
and its QR code, serving until Ctrl-C. `companion serve` serves a real table with it and `companion demo` the twin's,
which is the same table with virtual devices."""

from __future__ import annotations

import signal
import socket
import ssl
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from companion.errors import UserError
from companion.web.app import create_app
from companion.web.context import WebSettings
from companion.web.hostnames import local_names
from companion.web.join import join_url, qr_terminal
from companion.web.server import Https, Limits, WebServer
from companion.web.table import Table
from companion.web.tableca import Folder, ca_pem, ensure, load_authority
from companion.web.trust import Origins

if TYPE_CHECKING:
    from companion.sensing.vision import Vision
    from companion.table.live import LiveTable, Reader
    from companion.table.loop import TableLoop
    from companion.table.session import Session


def web_table(live: LiveTable, token: str | None = None) -> Table:
    """The phone page's view of the table: its game (a phone's new game taken up by `live.use`), its loop, its senses,
    its grids' walk-throughs and probe, its camera's calibration view and the phone camera's frames; `token`: a fixed
    table token (tests), else the one kept beside the game log."""
    import numpy as np

    from companion.table.datasets import DataSets, data_folder
    from companion.table.token import token_file
    from companion.web.calibration import CameraFeed
    from companion.web.errors import BadInput

    def make_loop(session: Session) -> TableLoop | None:
        return live.use(session)

    def latest() -> np.ndarray:
        if live.latest_image is None:
            raise BadInput("the camera has not delivered a frame yet", 503)
        return live.latest_image

    camera = None
    if live.vision is not None:
        feed = camera = CameraFeed(latest, _drawn(live.vision))
        live.visions.subscribe(lambda reader: feed.use(_drawn(reader)))  # a game on another board: the view draws it
    table = Table(
        live.session, live.loop, make_loop=make_loop, sensors=live.sensors, board=live.own_board,
        camera=camera, grid=live.table_grid(), beside=live.beside_grids(), probe=live.table_probe(),
        phone=live.phone, datasets=DataSets(data_folder(live.config.db)), token=token,
        token_path=None if token else token_file(live.config.db),
    )  # fmt: skip
    live.senses.changes.subscribe(lambda status: table.publish_sensors())
    return table


def _drawn(reader: Reader) -> Vision:
    """The calibration view's reader of the game's board, with a pose of its own (over several boards, the game's
    own: the first)."""
    from companion.sensing.vision import Vision

    vision, registry = reader
    one = getattr(vision, "visions", (vision,))[0]
    return Vision(one.board, registry, one.profile)


@dataclass(frozen=True)
class Tls:
    """Serve https too, from this folder (`companion tls init`), on this port (0: any free one)."""

    dir: Path
    port: int = 8443


def tls_settings(tls_dir: str | None, tls_port: int, port: int) -> Tls | None:
    """--tls-dir and --tls-port checked: None for http only ("none" or nothing)."""
    if tls_dir is None or tls_dir in ("", "none"):
        return None
    if not 0 <= tls_port <= 65535:
        raise UserError(f"--tls-port must be 0 to 65535, not {tls_port}")
    if tls_port == port and port != 0:
        raise UserError(f"--tls-port {tls_port} is the http port too: give https a port of its own")
    load_authority(Folder(tls_dir))  # before the table starts: a missing or broken CA is said at once
    return Tls(Path(tls_dir), tls_port)


def prepare_https(tls: Tls, origins: Origins, out: TextIO | None = None) -> Https:
    """The folder's server certificate, made again first when it does not cover this machine's names now (the CA
    stays, so phones that trust the table go on trusting it)."""
    folder = Folder(tls.dir)
    note = ensure(folder, local_names())
    if note and out is not None:
        print(f"https: {note}", file=out, flush=True)
    origins.ca_pem = ca_pem(folder)
    origins.ca_file = load_authority(folder).name.lower().replace(" ", "-") + ".crt"
    return Https(tls.port, folder.server_cert, folder.server_key)


def start_server(
    table: Table, host: str = "127.0.0.1", port: int = 8080, settings: WebSettings | None = None, threads: int = 8,
    tls: Tls | None = None, out: TextIO | None = None, limits: Limits | None = None,
) -> WebServer:  # fmt: skip
    """The table's app under the server (server.py) on a background thread (port 0: any free port), `threads` for
    the Flask app; with `tls`, over https on a second port as well."""
    origins = Origins()
    https = None if tls is None else prepare_https(tls, origins, out)
    server = WebServer(create_app(table, settings, origins), table.hub, host, port, threads, https, limits)
    try:
        server.start()
    except OSError as error:
        ports = f"{port}" if tls is None else f"{port} and {tls.port}"
        raise UserError(f"cannot serve on {host}:{ports}: {error.strerror or error}") from None
    origins.http_port, origins.https_port = server.port, server.https_port
    return server


class Renewal:
    """While serving: the server certificate made again when the machine gains an address it does not cover (the
    hotspot comes up, the Pi joins another network) and presented from the next handshake on. The CA stays, so
    phones that trust the table go on trusting it."""

    def __init__(self, tls: Tls, server: WebServer, out: TextIO | None = None, every: float = 60.0) -> None:
        self.folder, self.server, self.out, self.every = Folder(tls.dir), server, out, every
        self._next = time.monotonic() + every

    def tick(self, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        if now < self._next:
            return
        self._next = now + self.every
        try:
            note = ensure(self.folder, local_names())
            if note:
                self.server.reload_certificate()
        except (UserError, OSError, ssl.SSLError) as error:
            note = f"kept the certificate in use: {error}"  # the next tick tries again
        if note and self.out is not None:
            print(f"https: {note}", file=self.out, flush=True)


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
    """Print the page's address with the token, and its QR code; returns the address. The QR code is plain http,
    which any phone opens at once; phones that trust the table's CA are offered the https page by the page."""
    host = page_host(server.host)
    url = join_url(f"http://{host}:{server.port}/", table.seats.token)
    print(f"Phones: open {url}" + (" or scan:" if qr else ""), file=out, flush=True)
    if qr:
        print(qr_terminal(url), file=out, flush=True)
    print(f"Watch only: http://{host}:{server.port}/   (Ctrl-C stops the companion)", file=out, flush=True)
    if server.https_port is not None:
        print(f"Phones that trust the table: https://{host}:{server.https_port}/ (the CA: "
              f"http://{host}:{server.port}/ca.crt)", file=out, flush=True)  # fmt: skip
    return url


def _stop_on_signals(stop: threading.Event, signalled: list[int]) -> dict[int, Any]:
    """Ctrl-C (SIGINT) and systemd's stop (SIGTERM) end serving cleanly, even when the companion was started with
    SIGINT ignored (a background job of a shell) or with SIGTERM's default (which ends Python without cleaning up).
    Returns the handlers it replaced; none when not on the main thread (only that thread may set handlers)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    previous = {}
    for number in (signal.SIGINT, signal.SIGTERM):
        previous[number] = signal.signal(number, lambda got, _frame: (signalled.append(got), stop.set()))
    return previous


def serve(
    table: Table,
    host: str = "0.0.0.0",
    port: int = 8080,
    *,
    until: threading.Event | None = None,
    out: TextIO = sys.stdout,
    qr: bool = True,
    tls: Tls | None = None,
) -> None:
    """Serve the table in the foreground until Ctrl-C (or `until` is set), then stop every stream and the server."""
    server = start_server(table, host, port, tls=tls, out=out)
    announce(server, table, out, qr)
    renewal = None if tls is None else Renewal(tls, server, out)
    stop = until or threading.Event()
    signalled: list[int] = []
    previous = _stop_on_signals(stop, signalled)
    try:
        while not stop.wait(0.5):
            if renewal is not None:
                renewal.tick()
        if signalled:
            print("Stopping.", file=out, flush=True)
    except KeyboardInterrupt:
        print("Stopping.", file=out, flush=True)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        server.stop()
