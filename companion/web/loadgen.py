"""Many phones on one stream, for the load test and `companion bench web`.

The server runs in a child process (so that its memory can be watched alone) and produces announcements at a set
rate once every phone is connected; the phones are threads reading real SSE over HTTP. Two servers can be measured:
"companion" (the real table: a session committing random legal actions to SQLite, the Flask app, the hub) and
"bare" (aiohttp streaming the same rate of tiny messages from a list of queues, nothing else): the baseline. Under
attack, hostile guests (attack.py) hold slow requests and idle streams open meanwhile.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from companion.web.attack import Guests

MODES = ("companion", "bare", "replay")


@dataclass
class Phone:
    """One SSE reader: the entry ids it got and how long each took from its commit to arrival."""

    port: int
    source: str = "127.0.0.1"  # the phone's own address (127.0.1.x: each phone is a client of its own, as on Wi-Fi)
    ids: list[int] = field(default_factory=list)
    delays: list[float] = field(default_factory=list)
    error: str = ""
    connected: threading.Event = field(default_factory=threading.Event)

    def read(self, stop: threading.Event) -> None:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30,
                                                    source_address=(self.source, 0))  # fmt: skip
            connection.request("GET", "/events")
            response = connection.getresponse()
            if response.status != 200:
                raise OSError(f"/events answered {response.status}: {response.read()[:200]!r}")
            self.connected.set()
            event = ""
            while not stop.is_set():
                line = response.readline()
                if not line:
                    return
                if line.startswith(b"event: "):
                    event = line[7:].strip().decode()
                elif line.startswith(b"data: ") and event == "entry":
                    data = json.loads(line[6:])
                    self.delays.append(time.time() - data["created"])
                    self.ids.append(data["id"])
            connection.close()
        except OSError as error:
            self.error = str(error)
        finally:
            self.connected.set()


@dataclass
class LoadResult:
    mode: str
    clients: int
    produced: list[int]  # the entry ids the server announced while the phones listened
    seconds: float
    phones: list[Phone]
    rss_kb: list[int]  # the server's resident memory, once a second
    cpu_seconds: float = 0.0  # the server's processor time while it announced

    @property
    def delays(self) -> list[float]:
        return [d for phone in self.phones for d in phone.delays]

    @property
    def lost(self) -> int:
        wanted = set(self.produced)
        return sum(len(wanted - set(phone.ids)) for phone in self.phones)

    @property
    def duplicated(self) -> int:
        return sum(len(phone.ids) - len(set(phone.ids)) for phone in self.phones)

    @property
    def rate(self) -> float:
        return len(self.produced) / self.seconds if self.seconds else 0.0


def cpu_seconds(pid: int) -> float:
    """A process's processor time so far (user and system)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


@dataclass(frozen=True)
class Attack:
    """Hostile guests running while the phones listen: slow requests (a header line every 2 s) and idle streams."""

    slow: int = 50
    idle_streams: int = 100

    def guests(self, port: int) -> list[Guests]:
        return [Guests(port, "slow-headers", self.slow, subnet=2),
                Guests(port, "idle-streams", self.idle_streams, subnet=3, per_address=4)]  # fmt: skip


def run_load(mode: str, clients: int, seconds: float, rate: float, attack: Attack | None = None) -> LoadResult:
    """Start a server of `mode`, connect `clients` phones (with `attack`'s guests already there), produce for
    `seconds` at `rate` a second, and measure."""
    work = Path(tempfile.mkdtemp(prefix="orrery-load-"))
    ready, done = work / "port", work / "done"
    argv = [sys.executable, "-m", "companion.web.loadgen", mode, str(clients), str(seconds), str(rate), str(work)]
    child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    guests: list[Guests] = []
    try:
        port = int(_wait_for(ready, child, 30.0))
        guests = [g.start() for g in (attack.guests(port) if attack else [])]
        time.sleep(3.0 if attack else 0.0)  # the guests settle in first
        stop = threading.Event()
        phones = [Phone(port, f"127.0.1.{1 + n}") for n in range(clients)]
        threads = [threading.Thread(target=p.read, args=(stop,), daemon=True) for p in phones]
        for t in threads:
            t.start()
        for phone in phones:
            phone.connected.wait(30)
        cpu = cpu_seconds(child.pid)
        (work / "go").write_text("go\n")
        memory: list[int] = []
        deadline = time.monotonic() + seconds + 60
        while not done.exists() and time.monotonic() < deadline and child.poll() is None:
            memory.append(rss_kb(child.pid))
            time.sleep(1.0)
        report = json.loads(_wait_for(done, child, 10.0))
        cpu = cpu_seconds(child.pid) - cpu
        time.sleep(1.0)  # the last messages in flight
        stop.set()
        return LoadResult(mode, clients, report["ids"], report["seconds"], phones, memory, cpu)
    finally:
        for crowd in guests:
            crowd.stop()
        child.terminate()
        try:
            child.wait(10)
        except subprocess.TimeoutExpired:
            child.kill()


@dataclass
class ReplayResult:
    """Phones replaying a long log at once: what each received, how long each took, and the server's memory."""

    expected: int  # the entries in the log
    received: list[int]
    seconds: list[float]
    before_kb: int
    peak_kb: int
    after_kb: int


def replay_count(port: int, source: str, expected: int, into: list[tuple[int, float]]) -> None:
    """Read a stream from Last-Event-ID 0 until every entry has come (counted in the raw bytes, which is cheap)."""
    started = time.monotonic()
    count = 0
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(source, 0))
    try:
        connection.request("GET", "/events", headers={"Last-Event-ID": "0"})
        response = connection.getresponse()
        tail = b""
        while count < expected:
            chunk = response.read1(65536)
            if not chunk:
                break
            window = tail + chunk
            count += window.count(b"event: entry\n")
            tail = window[-12:]  # shorter than the marker: never counted twice
    except OSError:
        pass
    finally:
        connection.close()
        into.append((count, time.monotonic() - started))


def run_replay(entries: int, replays: int) -> ReplayResult:
    """A server whose log holds `entries` entries; `replays` phones replay it from the start at once."""
    work = Path(tempfile.mkdtemp(prefix="orrery-replay-"))
    argv = [sys.executable, "-m", "companion.web.loadgen", "replay", str(replays), "0", str(entries), str(work)]
    child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        port = int(_wait_for(work / "port", child, 120.0))
        expected = int(_wait_for(work / "done", child, 10.0))
        time.sleep(1.0)
        before = rss_kb(child.pid)
        results: list[tuple[int, float]] = []
        readers = [threading.Thread(target=replay_count, args=(port, f"127.0.4.{1 + n}", expected, results),
                                    daemon=True) for n in range(replays)]  # fmt: skip
        for reader in readers:
            reader.start()
        peak = before
        while any(reader.is_alive() for reader in readers):
            peak = max(peak, rss_kb(child.pid))
            time.sleep(0.05)
        time.sleep(1.0)
        after = rss_kb(child.pid)
        return ReplayResult(expected, [r[0] for r in results], [r[1] for r in results], before, peak, after)
    finally:
        child.terminate()
        try:
            child.wait(10)
        except subprocess.TimeoutExpired:
            child.kill()


def _wait_for(path: Path, child: subprocess.Popen, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().endswith("\n"):
            return path.read_text().strip()
        if child.poll() is not None:
            why = child.stderr.read().decode()[-800:] if child.stderr else ""
            raise RuntimeError(f"the load server stopped: {why}")
        time.sleep(0.05)
    raise TimeoutError(f"the load server wrote no {path.name} within {timeout:.0f} s")


# The child: the server under load.
def _produce(rate: float, seconds: float, step: Callable[[], int], work: Path) -> dict:
    while not (work / "go").exists():  # every phone is listening
        time.sleep(0.01)
    ids: list[int] = []
    start = time.monotonic()
    for n in range(int(rate * seconds)):
        delay = start + n / rate - time.monotonic()  # on a fixed schedule: a slow step does not slow the rate
        if delay > 0:
            time.sleep(delay)
        ids.append(step())
    return {"ids": ids, "seconds": time.monotonic() - start}


def _serve_companion(clients: int, seconds: float, rate: float, work: Path) -> None:
    from companion.rules import load
    from companion.sim.players import random_action
    from companion.table.session import Session
    from companion.table.store import Store
    from companion.web.serve import start_server
    from companion.web.table import Table

    players = ["red", "green", "blue"]
    table = Table(Session.start(Store(work / "load.db"), "trajectory", players, {}, 1))
    server = start_server(table, "127.0.0.1", 0)
    (work / "port").write_text(f"{server.port}\n")
    rng = random.Random(1)
    game = load("trajectory")

    def step() -> int:
        session = table.session
        if game.outcome(session.state) is not None:
            session = table.new_game("trajectory", players, {}, rng.randrange(1 << 30))
        return session.submit(random_action(game, session.state, rng), "phone", None).id

    report = _produce(rate, seconds, step, work)
    (work / "done").write_text(json.dumps(report) + "\n")
    threading.Event().wait()  # serve until the parent ends this process


def _serve_bare(clients: int, seconds: float, rate: float, work: Path) -> None:
    import asyncio

    from aiohttp import web

    loop = asyncio.new_event_loop()
    streams: list[asyncio.Queue] = []

    async def events(request: web.BaseRequest) -> web.StreamResponse:
        mine: asyncio.Queue = asyncio.Queue()
        streams.append(mine)
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        while True:
            await response.write(await mine.get())

    async def listen() -> asyncio.base_events.Server:
        return await loop.create_server(web.Server(events), "127.0.0.1", 0)

    server = loop.run_until_complete(listen())
    threading.Thread(target=loop.run_forever, daemon=True).start()
    (work / "port").write_text(f"{server.sockets[0].getsockname()[1]}\n")
    counter = iter(range(1, 1 << 62))

    def step() -> int:
        n = next(counter)
        message = f"event: entry\nid: {n}\ndata: {json.dumps({'id': n, 'created': time.time()})}\n\n".encode()
        loop.call_soon_threadsafe(lambda: [q.put_nowait(message) for q in streams])
        return n

    report = _produce(rate, seconds, step, work)
    (work / "done").write_text(json.dumps(report) + "\n")
    threading.Event().wait()


def _serve_replay(clients: int, seconds: float, entries: float, work: Path) -> None:
    """A table whose log already holds `entries` entries: notes as long as a real move's announcement."""
    import sqlite3

    from companion.table.session import Session
    from companion.table.store import Store
    from companion.web.serve import start_server
    from companion.web.table import Table

    store = Store(work / "replay.db")
    session = Session.start(store, "trajectory", ["red", "green", "blue"], {}, 1)
    text = "Red's ship flies from orbit 2 space 0 to orbit 3 space 5, burning 2 fuel; Blue draws an action card."
    events = json.dumps([{"type": "note", "text": text, "data": {"from": "o2s0", "to": "o3s5", "fuel": 2}}])
    rows = ((session.record.id, "note", None, "companion", None, events, time.time()) for _ in range(int(entries) - 1))
    with sqlite3.connect(work / "replay.db") as db:
        db.executemany("INSERT INTO entries (game_id, kind, action, source, actor, events, created)"
                       " VALUES (?, ?, ?, ?, ?, ?, ?)", rows)  # fmt: skip
    table = Table(session)
    server = start_server(table, "127.0.0.1", 0)
    (work / "port").write_text(f"{server.port}\n")
    (work / "done").write_text(f"{store.last_entry_id()}\n")
    threading.Event().wait()


def main() -> None:
    parser = argparse.ArgumentParser(description="the server side of the stream load test (run by run_load)")
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("clients", type=int)
    parser.add_argument("seconds", type=float)
    parser.add_argument("rate", type=float, help="announcements a second (replay: the log's length)")
    parser.add_argument("work", type=Path)
    args = parser.parse_args()
    serve = {"companion": _serve_companion, "bare": _serve_bare, "replay": _serve_replay}[args.mode]
    serve(args.clients, args.seconds, args.rate, args.work)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
