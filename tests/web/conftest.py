"""A real table served over real HTTP: `companion serve`'s own assembly (LiveTable from a TableConfig, its web
table from `web_table`) on a session in SQLite, its reed grid a virtual grid process on a pty, the Flask app under
aiohttp on a free port of 127.0.0.1. `served` is fed boards as the grid would report them, on its own observer at
the tests' own times (the table's threads stay still, as the twin's do on a clock of its own); `grid_served` is a
table whose own threads read its grid; `browser` is Debian's Chromium driven by Playwright."""

from __future__ import annotations

import contextlib
import functools
import http.client
import json
import socket
import ssl
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import pytest

from companion.boards import default_board
from companion.calibration.grid import GridProfile, save_profile
from companion.sensing.vision_profile import save_profile as save_camera
from companion.sim.render_camera import sim_profile
from companion.sim.simavr_grid import GridProcess, virtual_grid
from companion.sim.table_setup import twin_camera
from companion.sim.twin import switch_map
from companion.sim.twin_camera import TwinCamera
from companion.table.config import TableConfig
from companion.table.live import LiveTable
from companion.table.loop import TableLoop
from companion.table.observe import CameraView, Observer
from companion.table.session import Session
from companion.table.store import Store
from companion.web.context import WebSettings
from companion.web.serve import Tls, start_server, web_table
from companion.web.server import Limits, WebServer
from companion.web.table import Table

BOARD = default_board("trajectory")
SWITCHES = switch_map(BOARD, 8, 8)
# Planets where the tests expect them; Red has drawn, so Red may fly.
OPTIONS = {"planets": {"metal": 0, "home": 0, "helium": 0, "ice": 0}, "difficulty": "easy"}
TOKEN = "test-table-token"
Senses = Literal["grid", "camera", "none"]  # what a table in these tests has to see the board with
CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "web"  # screenshots of the page


def host_phone(table: Table) -> str:
    """The key of a phone that joins now (the host when it is the first), playing every free seat of the game by
    pass and play."""
    phone, key = table.seats.join()
    for seat in table.session.record.players:
        if table.seats.holder(seat) is None:
            phone = table.seats.take(phone, seat, together=True)
    return key


@dataclass
class Served:
    table: Table
    server: WebServer
    observer: Observer | None  # None: no grid and no camera
    store: Store
    key: str = ""  # the key of the tests' own phone (joined at its first request: the host when no page came first)
    live: LiveTable | None = None  # the table as `companion serve` assembles it
    grid: GridProcess | None = None  # the virtual grid on the pty its link reads
    own_grid: bool = True  # the grid was started for this table (not a module's, shared by its tables)

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def session(self) -> Session:
        return self.table.session

    @property
    def loop(self) -> TableLoop:
        assert self.table.loop is not None
        return self.table.loop

    def request(
        self, method: str, path: str, body: Any = None, token: str | None = TOKEN, raw: bytes | None = None,
        key: str | None = None,
    ) -> tuple[int, Any]:  # fmt: skip
        """A request from the host's phone (`token` None: from a browser that only watches; `key`: another
        phone's)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["X-Orrery-Token"] = token
            headers["X-Orrery-Phone"] = key if key is not None else self.own_key()
        payload = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        connection.request(method, path, payload, headers)
        response = connection.getresponse()
        data = response.read()
        connection.close()
        kind = response.getheader("Content-Type", "")
        return response.status, json.loads(data) if kind.startswith("application/json") else data

    def get(self, path: str, token: str | None = None) -> Any:
        status, data = self.request("GET", path, token=token)
        assert status == 200, data
        return data

    def post(self, path: str, body: Any = None, token: str | None = TOKEN, key: str | None = None) -> tuple[int, Any]:
        return self.request("POST", path, {} if body is None else body, token, key=key)

    def own_key(self) -> str:
        """The tests' own phone's key, joining it first (it plays every seat no page took)."""
        if not self.key:
            self.key = host_phone(self.table)
        return self.key

    def host_now(self) -> None:
        """The tests' own phone becomes the host (the console's word, `companion phones host`)."""
        phone = self.table.seats.phone(self.own_key())
        assert phone is not None
        self.table.seats.hand_host(phone.id)

    def stop_guide(self) -> None:
        """The group has set a new game's pieces out and stops the guided setup the game began with, as the guide's
        Stop guiding button does (the phones' moves wait for the board until then)."""
        setup = self.get("/api/setup")
        assert setup["state"] == "placing", setup
        status, answer = self.post("/api/setup", {"do": "stop"})
        assert status == 200 and answer["state"] == "stopped", answer

    def join(self) -> str:
        """Another phone joins (with the token): its key."""
        status, joined = self.request("POST", "/api/phones", {}, key="")
        assert status == 201, joined
        return joined["key"]

    def restart(self, db: Path | None = None, senses: Senses | None = None) -> None:
        """Stop the server and start the companion again on the same port and grid, as after a power cut: on the same
        log, or on the one in `db` (the table resumes its unfinished game); with `senses` (None: as before)."""
        assert self.live is not None
        port = self.port
        self.server.stop()  # a second stop (the test stopped it already) does nothing
        self.live.stop()
        config = self.live.config
        before: Senses = "grid" if config.serial != "none" else "camera" if config.camera != "none" else "none"
        fresh = serve(db or Path(config.db), port, grid=self.grid, senses=senses or before)
        assert fresh.live is not None and fresh.live.resumed
        self.table, self.server, self.observer, self.store, self.live = (
            fresh.table, fresh.server, fresh.observer, fresh.store, fresh.live)  # fmt: skip
        self.key = ""

    def stop(self) -> None:
        """The server, the table and its own grid stopped."""
        assert self.live is not None
        self.server.stop()
        self.live.stop()
        if self.grid is not None and self.own_grid:
            self.grid.stop()

    # The board, as the table's senses report it to its observer: the grid's closed switches, or the camera's two
    # frames a settle window apart (on a table with the camera alone).
    def board(self, layout: dict[str, tuple[str, ...]], at: float) -> Any:
        assert self.observer is not None and self.live is not None
        if self.live.grid is None:  # the camera alone
            stacks = {site: pieces for site, pieces in layout.items() if pieces}
            for t in (at, at + 0.5):
                self.observer.camera(CameraView(t, stacks, frozenset()))
        else:
            self.observer.reed(frozenset(SWITCHES[site] for site, pieces in layout.items() if pieces), at)
        return self.loop.tick(at + 1.0)

    def mismatch(self, at: float = 0.0) -> Any:
        """Red's ship put down on a space no rule allows."""
        wrong = {**self.session.game.layout(self.session.state), "o4s20": ("ship-red",)}
        return self.board(wrong, at)

    def put_right(self, at: float = 5.0) -> Any:
        return self.board(self.session.game.layout(self.session.state), at)

    def ambiguous(self, at: float = 10.0) -> Any:
        """On a table with the camera alone (`camera_served`), Red's ship is lifted from the home space and the
        camera's frames read the home space only (every other sticker unclear): it sees the ship gone, not where to,
        and the phones must say."""
        assert self.observer is not None and self.live is not None and self.live.grid is None, "the camera alone"
        elsewhere = frozenset(site.id for site in BOARD.sites) - {"o2s0"}
        for t in (at, at + 0.5):
            self.observer.camera(CameraView(t, {"o2s0": ("planet-home", "ship-blue")}, elsewhere, unread=elsewhere))
        return self.loop.tick(at + 0.5)


def free_port() -> int:
    # A fixed port (not 0): the server sets SO_REUSEADDR, so a restart can bind it again at once.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve(
    db: Path, port: int = 0, tls: Tls | None = None, limits: Limits | None = None, grid: GridProcess | None = None,
    senses: Senses = "grid", camera: Path | None = None,
) -> Served:  # fmt: skip
    """`companion serve`'s table on the log in `db` (its unfinished game resumed, else a new two-player Trajectory
    with the tests' seed), with `senses`: "grid", the virtual one on `grid`'s pty (default: a new one) calibrated to
    the board in `grid.json` beside the log; "camera", the camera alone, a phone on a stand whose profile is the
    rendered camera's (`camera.json` beside the log) or the one in `camera`; "none", the phones alone. The table's
    own threads stay still: the tests look at the board themselves."""
    config = TableConfig(game="trajectory", players=("red", "blue"), seed=1, options=OPTIONS, db=str(db),
                         serial="none", settle=0.3)  # fmt: skip
    own = senses == "grid" and grid is None
    if senses == "grid":
        if grid is None:
            grid = virtual_grid(8, 8).start()
            grid.go()
        profile = db.parent / "grid.json"
        save_profile(GridProfile(BOARD.name, 8, 8, SWITCHES), profile)
        config = replace(config, serial=grid.port, grid_profile=str(profile))
    elif senses == "camera":
        profile = camera or db.parent / "camera.json"
        if camera is None:
            save_camera(sim_profile(rendered_camera().camera, BOARD.name), profile)
        config = replace(config, camera="phone", camera_profile=str(profile))
    live = LiveTable(config).start(wait=10, threads=False)
    assert senses != "grid" or (live.link is not None and live.link.wait_synced(10))
    table = web_table(live, TOKEN)
    settings = WebSettings(heartbeat=0.3, retry_ms=300)
    server = start_server(table, "127.0.0.1", port or free_port(), settings, threads=24, tls=tls, limits=limits)
    return Served(table, server, live.observer, live.store, live=live, grid=grid, own_grid=own)


@contextlib.contextmanager
def new_table(
    folder: Path, tls: Tls | None = None, limits: Limits | None = None, senses: Senses = "grid",
    camera: Path | None = None, grid: GridProcess | None = None,
) -> Iterator[Served]:  # fmt: skip
    """A two-player Trajectory in `folder`, Red having drawn, served until the block ends (with https on `tls`,
    and the server's `limits`; with `senses`, the camera profile in `camera`, and the virtual grid `grid`)."""
    from companion.rules import Action

    table = serve(folder / "table.db", tls=tls, limits=limits, senses=senses, camera=camera, grid=grid)
    table.session.submit(Action.make("draw", card="action"), "phone", "red")
    try:
        yield table
    finally:
        table.stop()


@contextlib.contextmanager
def phones_table(
    db: Path, game: str = "trajectory", players: Sequence[str] = ("red", "blue"), options: dict | None = None,
    seed: int = 1, token: str | None = TOKEN,
) -> Iterator[Table]:  # fmt: skip
    """`companion serve`'s web table with no grid and no camera (the phones alone), unserved, on the log in `db`: its
    unfinished game resumed, else a new `game`; `token` None: the table's token kept beside the log."""
    config = TableConfig(game=game, players=tuple(players), seed=seed, options=options or {}, db=str(db),
                         serial="none", camera="none")  # fmt: skip
    live = LiveTable(config).start()
    try:
        yield web_table(live, token)
    finally:
        live.stop()


class WatchedBrowser:
    """A launched browser whose every page reports its script errors (uncaught exceptions) to `errors`: a test
    that used it fails on any (the `_no_page_errors` fixture below). The shared `browser` is one; a test that
    launches its own (other flags, another HOME) wraps it in one too."""

    def __init__(self, launched: Any) -> None:
        self.launched, self.errors = launched, []
        WATCHED.append(self)

    def watch(self, context: Any) -> Any:
        context.on("page", lambda page: page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}")))
        return context

    def new_context(self, **options: Any) -> Any:
        return self.watch(self.launched.new_context(**options))

    def new_page(self, **options: Any) -> Any:
        return self.new_context(**options).new_page()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.launched, name)


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium driven by Playwright (never a browser download), its pages watched for script errors."""
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), "Debian's chromium is missing: it is in .ci/apt-test (./run test installs it)"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield WatchedBrowser(launched)
        launched.close()


WATCHED: list[WatchedBrowser] = []  # the browsers launched in this session and not yet closed


@pytest.fixture(autouse=True)
def _no_page_errors():
    """Every browser test fails on a script error in any page it opened, on any watched browser."""
    yield
    errors = [error for watched in WATCHED for error in watched.errors]
    for watched in WATCHED:
        watched.errors.clear()
    WATCHED[:] = [watched for watched in WATCHED if watched.launched.is_connected()]
    assert not errors, errors


@pytest.fixture(scope="module")
def grid_device():
    """One virtual grid process for a module's tables: each table opens its own link to its pty, as a table
    restarted on the same grid does (a grid process per table would cost each test its start)."""
    with virtual_grid(8, 8) as grid:
        grid.go()
        yield grid


@pytest.fixture
def served(tmp_path, grid_device):
    with new_table(tmp_path, grid=grid_device) as table:
        yield table


@pytest.fixture
def phones_served(tmp_path):
    """The same table with no grid and no camera: the phones alone."""
    with new_table(tmp_path, senses="none") as table:
        yield table


@pytest.fixture
def camera_served(tmp_path):
    """The same table with the camera alone (a phone on a stand, no grid)."""
    with new_table(tmp_path, senses="camera") as table:
        yield table


@functools.cache
def rendered_camera() -> TwinCamera:
    """The twin's rendered camera over the Trajectory board (its frames read by the real vision)."""
    camera = twin_camera("trajectory", BOARD, 1)
    assert isinstance(camera, TwinCamera)
    return camera


class Stream:
    """An SSE client over a raw HTTP connection (or https with `context`): messages as dicts (event, id, data),
    comments counted."""

    def __init__(self, port: int, path: str = "/events", last_id: int | None = None, timeout: float = 5.0,
                 context: ssl.SSLContext | None = None, host: str = "127.0.0.1") -> None:  # fmt: skip
        self.connection = (http.client.HTTPConnection(host, port, timeout=timeout) if context is None
                           else http.client.HTTPSConnection(host, port, timeout=timeout, context=context))  # fmt: skip
        headers = {} if last_id is None else {"Last-Event-ID": str(last_id)}
        self.connection.request("GET", path, headers=headers)
        self.response = self.connection.getresponse()
        self.comments = 0

    def next(self, deadline: float | None = None) -> dict[str, Any]:
        message: dict[str, Any] = {}
        while deadline is None or time.monotonic() < deadline:
            line = self.response.readline()
            if not line:
                raise EOFError("the stream ended")
            line = line.decode().rstrip("\n")
            if not line:
                if message:
                    return message
                continue
            if line.startswith(":"):
                self.comments += 1
                continue
            name, _, value = line.partition(": ")
            message[name] = json.loads(value) if name == "data" else value
        raise TimeoutError("only keep-alive comments until the deadline")

    def until(self, event: str, test: Any = lambda data: True, within: float = 5.0) -> dict[str, Any]:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            message = self.next(deadline)
            if message.get("event") == event and test(message.get("data")):
                return message
        raise TimeoutError(f"no {event} event within {within} s")

    def close(self) -> None:
        self.connection.close()


@pytest.fixture
def stream(served):
    opened: list[Stream] = []

    def open_stream(path: str = "/events", last_id: int | None = None) -> Stream:
        opened.append(Stream(served.port, path, last_id))
        return opened[-1]

    yield open_stream
    for s in opened:
        s.close()


# A real table with its reed grid: `companion serve`'s LiveTable over a virtual grid process on a pty (the firmware's
# protocol, read by the host's ReedLink thread into the Observer), served as `companion serve` serves it.
SCRAMBLED = {site.id: (7 - i // 8, (3 * i + 5) % 8) for i, site in enumerate(BOARD.sites)}  # a grid wired otherwise


@dataclass
class GridServed(Served):
    profile: Any = None
    wiring: dict[str, tuple[int, int]] | None = None  # site -> the switch really under it

    def put(self, *sites: str) -> None:
        """Set a piece down on each of these sites (closing the switch under it)."""
        for site in sites:
            self.grid.close_switch(*self.wiring[site])

    def lift(self, *sites: str) -> None:
        """Take the pieces off these sites, and wait until the grid has said so (a hand takes longer than the
        firmware's debounce)."""
        for site in sites:
            self.grid.open_switch(*self.wiring[site])
        switches = {self.wiring[site] for site in sites}
        self.until(lambda: not switches & self.live.link.occupancy(), what="the switches opening")

    def show(self, layout: dict[str, Any]) -> None:
        """The whole board at once: a switch closed under every site that holds something."""
        self.grid.set_all({self.wiring[site] for site, pieces in layout.items() if pieces})

    def until(self, test: Any, within: float = 10.0, what: str = "the table") -> Any:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            value = test()
            if value:
                return value
            time.sleep(0.01)
        raise TimeoutError(f"{what} did not come within {within} s")


@pytest.fixture
def grid_served(tmp_path):
    """Start a LiveTable on a virtual grid: `grid_served(wiring, calibrated)`; the grid profile file is
    tmp_path/grid.json (written from `wiring` when `calibrated`, else absent: the table's first calibration).
    `game` and `options` are the table's game (two players, red and blue) and its first game's options."""
    started: list[GridServed] = []

    def start(wiring: dict[str, tuple[int, int]], calibrated: bool, game: str = "trajectory",
              options: dict | None = None) -> GridServed:  # fmt: skip
        grid = virtual_grid(8, 8).start()
        grid.go()
        profile = tmp_path / "grid.json"
        if calibrated:
            save_profile(GridProfile(BOARD.name, 8, 8, wiring), profile)
        config = TableConfig(game=game, db=str(tmp_path / "table.db"), players=("red", "blue"),
                             options=OPTIONS if options is None else options, serial=grid.port,
                             grid_profile=str(profile), settle=0.1)  # fmt: skip
        live = LiveTable(config).start(wait=10)
        assert live.link is not None and live.link.wait_synced(10)
        table = web_table(live)
        table.seats.token = TOKEN
        server = start_server(table, "127.0.0.1", free_port(), WebSettings(heartbeat=0.3, retry_ms=300), threads=24)
        served = GridServed(table, server, live.observer, live.store, live=live, grid=grid, profile=profile,
                            wiring=wiring)  # fmt: skip
        started.append(served)
        return served

    yield start
    for served in started:
        served.stop()
