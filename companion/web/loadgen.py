"""Many phones on one stream, for the load test and `companion bench web`.

The server runs in a child process (so that its memory can be watched alone) and produces announcements at a set
rate once every phone is connected; the phones are threads reading real SSE over HTTP. Two servers can be measured:
"companion" (the real table: a session committing random legal actions to SQLite, the Flask app, the hub) and
"bare" (cheroot streaming the same rate of tiny messages from a list of queues, nothing else): the baseline.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import queue
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

MODES = ("companion", "bare")


@dataclass
class Phone:
    """One SSE reader: the entry ids it got and how long each took from its commit to arrival."""

    port: int
    ids: list[int] = field(default_factory=list)
    delays: list[float] = field(default_factory=list)
    error: str = ""

    def read(self, stop: threading.Event) -> None:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            connection.request("GET", "/events")
            response = connection.getresponse()
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


@dataclass
class LoadResult:
    mode: str
    clients: int
    produced: list[int]  # the entry ids the server announced while the phones listened
    seconds: float
    phones: list[Phone]
    rss_kb: list[int]  # the server's resident memory, once a second

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


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def run_load(mode: str, clients: int, seconds: float, rate: float) -> LoadResult:
    """Start a server of `mode`, connect `clients` phones, produce for `seconds` at `rate` a second, and measure."""
    work = Path(tempfile.mkdtemp(prefix="orrery-load-"))
    ready, done = work / "port", work / "done"
    argv = [sys.executable, "-m", "companion.web.loadgen", mode, str(clients), str(seconds), str(rate), str(work)]
    child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        port = int(_wait_for(ready, child, 30.0))
        stop = threading.Event()
        phones = [Phone(port) for _ in range(clients)]
        threads = [threading.Thread(target=p.read, args=(stop,), daemon=True) for p in phones]
        for t in threads:
            t.start()
        memory: list[int] = []
        deadline = time.monotonic() + seconds + 60
        while not done.exists() and time.monotonic() < deadline and child.poll() is None:
            memory.append(rss_kb(child.pid))
            time.sleep(1.0)
        report = json.loads(_wait_for(done, child, 10.0))
        time.sleep(1.0)  # the last messages in flight
        stop.set()
        return LoadResult(mode, clients, report["ids"], report["seconds"], phones, memory)
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
def _produce(rate: float, seconds: float, step: Callable[[], int], waiting: Callable[[], bool]) -> dict:
    while waiting():
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
    server = start_server(table, "127.0.0.1", 0, threads=clients + 12)
    (work / "port").write_text(f"{server.port}\n")
    rng = random.Random(1)
    game = load("trajectory")

    def step() -> int:
        session = table.session
        if game.outcome(session.state) is not None:
            session = table.new_game("trajectory", players, {}, rng.randrange(1 << 30))
        return session.submit(random_action(game, session.state, rng), "phone", None).id

    report = _produce(rate, seconds, step, lambda: table.hub.streams < clients)
    (work / "done").write_text(json.dumps(report) + "\n")
    threading.Event().wait()  # serve until the parent ends this process


def _serve_bare(clients: int, seconds: float, rate: float, work: Path) -> None:
    from cheroot.wsgi import Server

    streams: list[queue.Queue] = []
    lock = threading.Lock()

    def app(environ: dict, start_response: Callable) -> Iterator[bytes]:
        mine: queue.Queue = queue.Queue()
        with lock:
            streams.append(mine)
        start_response("200 OK", [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")])
        while True:
            yield mine.get()

    server = Server(("127.0.0.1", 0), app, numthreads=clients + 12)
    server.prepare()
    threading.Thread(target=server.serve, daemon=True).start()
    (work / "port").write_text(f"{server.bind_addr[1]}\n")
    counter = iter(range(1, 1 << 62))

    def step() -> int:
        n = next(counter)
        message = f"event: entry\nid: {n}\ndata: {json.dumps({'id': n, 'created': time.time()})}\n\n".encode()
        with lock:
            for q in streams:
                q.put(message)
        return n

    report = _produce(rate, seconds, step, lambda: len(streams) < clients)
    (work / "done").write_text(json.dumps(report) + "\n")
    threading.Event().wait()


def main() -> None:
    parser = argparse.ArgumentParser(description="the server side of the stream load test (run by run_load)")
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("clients", type=int)
    parser.add_argument("seconds", type=float)
    parser.add_argument("rate", type=float)
    parser.add_argument("work", type=Path)
    args = parser.parse_args()
    serve = _serve_companion if args.mode == "companion" else _serve_bare
    serve(args.clients, args.seconds, args.rate, args.work)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
