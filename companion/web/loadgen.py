"""Many phones on one stream, for the load test and `companion bench web`.

Every party runs in a process of its own, as on the Wi-Fi every guest has a device of its own: the server (so that
its memory and processor time can be watched alone), the phones (one process reading every phone's socket as bytes
arrive, stamping each entry's arrival before it parses anything), and each crowd of hostile guests (attack.py).
A bench in one process would measure itself: its own readers and attackers queueing for one interpreter lock.

The server produces announcements at a set rate once every phone is connected. Two servers can be measured:
"companion" (the real table: a session committing random legal actions to SQLite, the Flask app, the hub) and
"bare" (aiohttp streaming the same rate of tiny messages from a list of queues, nothing else): the baseline. The
server notes when each entry was committed (the companion) or made (bare); delivery is from then to its arrival.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import selectors
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from companion.web.attack import Guests, phone_check

MODES = ("companion", "bare", "replay", "phones")


@dataclass
class Phone:
    """One SSE reader: the entry ids it got, in order, and how long each took from its commit to arrival."""

    ids: list[int] = field(default_factory=list)
    delays: list[float] = field(default_factory=list)
    error: str = ""
    totals: list[float] = field(default_factory=list)  # from the move's submission (before its commit) to arrival
    states: list[float] = field(default_factory=list)  # from a commit to the arrival of the state after it


@dataclass
class LoadResult:
    mode: str
    clients: int
    produced: list[int]  # the entry ids the server announced while the phones listened
    seconds: float
    phones: list[Phone]
    rss_kb: list[int]  # the server's resident memory, once a second
    cpu_seconds: float = 0.0  # the server's processor time while it announced
    commits: list[float] = field(default_factory=list)  # seconds from a move's submission to its commit (the disk)
    start_kb: int = 0  # the server's resident memory once it served, before any guest or phone came
    peak_kb: int = 0  # its peak resident memory over the whole run
    looks: dict[str, list[float]] = field(default_factory=dict)  # a phone's fetches of the page and /healthz (s)
    look_errors: list[str] = field(default_factory=list)  # fetches that failed or answered other than 200

    @property
    def delays(self) -> list[float]:
        return [d for phone in self.phones for d in phone.delays]

    @property
    def totals(self) -> list[float]:
        return [d for phone in self.phones for d in phone.totals]

    @property
    def states(self) -> list[float]:
        return [d for phone in self.phones for d in phone.states]

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


def rss_kb(pid: int, field: str = "VmRSS") -> int:
    """A process's resident memory now (VmRSS) or at its peak so far (VmHWM), in kB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    return 0


LOOKS = ("/", "/healthz")  # what a phone fetches beside the stream while the bench runs


@dataclass(frozen=True)
class Attack:
    """Hostile guests running while the phones listen: slow requests (a header line every 2 s), idle streams, and
    guests without the token sending camera stills of 24 MB and boards of 4 MB to check, again and again."""

    slow: int = 50
    idle_streams: int = 100
    frames: int = 32
    checks: int = 12

    def crowds(self, port: int) -> list[Guests]:
        return [Guests(port, "slow-headers", self.slow, subnet=2),
                Guests(port, "idle-streams", self.idle_streams, subnet=3, per_address=4),
                Guests(port, "frames", self.frames, subnet=4, per_address=8, every=0.1),
                Guests(port, "board-checks", self.checks, subnet=5, per_address=3, every=0.1)]  # fmt: skip


def run_load(mode: str, clients: int, seconds: float, rate: float, attack: Attack | None = None) -> LoadResult:
    """Start a server of `mode`, connect `clients` phones (with `attack`'s guests already there), produce for
    `seconds` at `rate` a second, and measure."""
    work = Path(tempfile.mkdtemp(prefix="orrery-load-"))
    ready, done = work / "port", work / "done"
    child = _child(mode, str(clients), str(seconds), str(rate), str(work))
    parties: list[subprocess.Popen] = []
    try:
        port = int(_wait_for(ready, child, 120.0))
        start = rss_kb(child.pid)
        parties = [crowd.spawn() for crowd in (attack.crowds(port) if attack else [])]
        time.sleep(3.0 if attack else 0.0)  # the guests settle in first
        phones = _child("phones", str(clients), "0", str(port), str(work))
        parties.append(phones)
        _wait_for(work / "phones-ready", phones, 60.0)
        cpu = cpu_seconds(child.pid)
        (work / "go").write_text("go\n")
        memory: list[int] = []
        looks: dict[str, list[float]] = {path: [] for path in LOOKS} if mode == "companion" else {}
        look_errors: list[str] = []
        deadline = time.monotonic() + seconds + 60
        while not done.exists() and time.monotonic() < deadline and child.poll() is None:
            memory.append(rss_kb(child.pid))
            for path, times in looks.items():  # a real phone on its own address, once a second
                try:
                    times.append(phone_check(port, (path,)))
                except (OSError, AssertionError) as error:
                    look_errors.append(f"GET {path}: {error}")
            time.sleep(1.0)
        report = json.loads(_wait_for(done, child, 10.0))
        cpu = cpu_seconds(child.pid) - cpu
        peak = rss_kb(child.pid, "VmHWM")
        time.sleep(1.0)  # the last messages in flight
        (work / "stop").write_text("stop\n")
        heard = json.loads(_wait_for(work / "phones.json", phones, 30.0))
        committed = {int(k): v for k, v in report["at"].items()}
        began = {int(k): v for k, v in report["began"].items()}
        result = [Phone(p["ids"], _since(committed, p["ids"], p["at"]), p["error"], _since(began, p["ids"], p["at"]),
                        _since(committed, p["states"], p["states_at"])) for p in heard]  # fmt: skip
        return LoadResult(
            mode,
            clients,
            report["ids"],
            report["seconds"],
            result,
            memory,
            cpu,
            report["commits"],
            start,
            peak,
            looks,
            look_errors,
        )
    finally:
        for party in [*parties, child]:
            _end(party)


def _since(moments: dict[int, float], ids: list[int], arrivals: list[float]) -> list[float]:
    """Each arrival's seconds since its entry's moment (entries the server did not time left out)."""
    return [t - moments[i] for i, t in zip(ids, arrivals, strict=True) if i in moments]


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
    child = _child("replay", str(replays), "0", str(entries), str(work))
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
        _end(child)


def _child(*argv: str) -> subprocess.Popen:
    """A party of the test in a process of its own (this module's main)."""
    return subprocess.Popen([sys.executable, "-m", "companion.web.loadgen", *argv], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip


def _end(child: subprocess.Popen) -> None:
    child.terminate()
    try:
        child.wait(10)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait(10)


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


# The children: the server under load, and the phones.
def _produce(rate: float, seconds: float, step: Callable[[int], tuple[int, float]], work: Path) -> dict:
    """Call `step` (which returns the entry id it announced and when its commit began) on a fixed schedule once
    every phone listens; the report says which ids were announced, when each was committed or made, and how long
    each commit took."""
    while not (work / "go").exists():  # every phone is listening
        time.sleep(0.01)
    ids: list[int] = []
    commits: list[float] = []
    began: dict[int, float] = {}
    start = time.monotonic()
    for n in range(int(rate * seconds)):
        delay = start + n / rate - time.monotonic()  # on a fixed schedule: a slow step does not slow the rate
        if delay > 0:
            time.sleep(delay)
        entry_id, began[entry_id] = step(n)
        ids.append(entry_id)
        commits.append(_announced[entry_id] - began[entry_id])
    return {"ids": ids, "seconds": time.monotonic() - start, "at": _announced, "began": began, "commits": commits}


_announced: dict[int, float] = {}  # entry id -> the moment the server had it to announce (time.time())


def _serve_companion(clients: int, seconds: float, rate: float, work: Path) -> None:
    from companion.rules import Action, load
    from companion.sim.players import random_action
    from companion.table.session import Session
    from companion.table.store import Entry, Store
    from companion.web.serve import start_server
    from companion.web.table import Table

    class TimedTable(Table):
        """The table, noting when each entry reached it committed (before it is made into messages and sent)."""

        def _on_entry(self, entry: Entry) -> None:
            _announced[entry.id] = time.time()
            super()._on_entry(entry)

    players = ["red", "green", "blue"]
    table = TimedTable(Session.start(Store(work / "load.db"), "trajectory", players, {}, 1))
    server = start_server(table, "127.0.0.1", 0)
    # The players choose their moves before the clock starts, as people do on phones of their own: the server's
    # processor then does only what a table does for a move (check it, commit it, announce it).
    rng = random.Random(1)
    game = load("trajectory")
    plan: list[tuple[int | None, Action]] = []  # (the seed of a new game to start first, the move)
    state = table.session.state
    for _ in range(int(rate * seconds)):
        seed = None
        if game.outcome(state) is not None:
            seed = rng.randrange(1 << 30)
            state = game.setup(players, {}, seed)
        action = random_action(game, state, rng)
        state, _ = game.apply(state, action)
        plan.append((seed, action))
    (work / "port").write_text(f"{server.port}\n")

    def step(n: int) -> tuple[int, float]:
        seed, action = plan[n]
        session = table.session
        if seed is not None:
            session = table.new_game("trajectory", players, {}, seed)
        began = time.time()
        return session.submit(action, "phone", None).id, began

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

    def step(_: int) -> tuple[int, float]:
        n = next(counter)
        _announced[n] = made = time.time()
        message = f"event: entry\nid: {n}\ndata: {json.dumps({'id': n, 'created': made})}\n\n".encode()
        loop.call_soon_threadsafe(lambda: [q.put_nowait(message) for q in streams])
        return n, made

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


MESSAGE = re.compile(rb"event: (entry|state)\n(?:id: (?:[0-9a-zA-Z]+-)?([0-9]+)\n)?")


def _phones(count: int, _: float, port: float, work: Path) -> None:
    """`count` phones (127.0.1.x, an address each) on /events, read by one thread as bytes arrive: each entry's id,
    and the first state after each entry, is stamped with the moment its bytes were read; the SSE text is searched
    only for the events' names and ids."""
    selector = selectors.DefaultSelector()
    heard = [{"ids": [], "at": [], "error": "", "states": [], "states_at": []} for _ in range(count)]
    pending = [b""] * count  # the bytes after the last whole id line, for an id split across two reads
    for n in range(count):
        sock = socket.create_connection(("127.0.0.1", int(port)), 30, (f"127.0.1.{1 + n}", 0))
        sock.sendall(b"GET /events HTTP/1.1\r\nHost: table\r\nAccept: text/event-stream\r\n\r\n")
        head = b""
        while b"\r\n\r\n" not in head:
            part = sock.recv(65536)
            if not part:
                break
            head += part
        if not head.startswith(b"HTTP/1.1 200"):
            heard[n]["error"] = f"/events answered {head[:200]!r}"
            sock.close()
            continue
        pending[n] = head.partition(b"\r\n\r\n")[2]
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ, n)
    (work / "phones-ready").write_text("ready\n")
    while not (work / "stop").exists():
        for key, _ in selector.select(0.05):
            n = key.data
            try:
                data = key.fileobj.recv(262144)  # type: ignore[union-attr]
            except BlockingIOError:
                continue
            except OSError as error:
                data, heard[n]["error"] = b"", str(error)
            arrived = time.time()
            if not data:
                selector.unregister(key.fileobj)
                heard[n]["error"] = heard[n]["error"] or "the table closed the stream"
                continue
            window = pending[n] + data
            end = 0
            phone = heard[n]
            for match in MESSAGE.finditer(window):
                end = match.end()
                if match.group(1) == b"entry":
                    phone["ids"].append(int(match.group(2)))
                    phone["at"].append(arrived)
                elif phone["ids"] and phone["states"][-1:] != phone["ids"][-1:]:  # the state after the last entry
                    phone["states"].append(phone["ids"][-1])
                    phone["states_at"].append(arrived)
            pending[n] = window[max(end, len(window) - 80) :]
    (work / "phones.json").write_text(json.dumps(heard) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description="the server side of the stream load test (run by run_load)")
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("clients", type=int)
    parser.add_argument("seconds", type=float)
    parser.add_argument("rate", type=float, help="announcements a second (replay: the log's length)")
    parser.add_argument("work", type=Path)
    args = parser.parse_args()
    serve = {"companion": _serve_companion, "bare": _serve_bare, "replay": _serve_replay, "phones": _phones}[args.mode]
    serve(args.clients, args.seconds, args.rate, args.work)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
