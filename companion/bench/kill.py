"""`companion bench kill`: the companion killed at random moments of twin games, then restarted, again and again.

A child process plays twin games into one SQLite file and prints every announcement as it makes it (the entry id
and a digest of the state the phones were just told about). The parent kills the child's whole process group with
SIGKILL at a random moment, opens the file as a restart would, and resumes the game. The promise: the resumed game
is the last announced state, or at most one action further (committed, killed before it was announced; a restart
announces it then). Anything else is a lost announcement, and the bench fails.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.rules import DEFAULT

HELP = "kill the companion at random moments of twin games and restart it: no announced action may be lost"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kills", type=int, default=200, help="how many times to kill it (default 200)")
    parser.add_argument("--game", default=DEFAULT)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--most", type=float, default=1.5, help="longest run before a kill, in seconds (default 1.5)")


@dataclass
class KillReport:
    kills: int = 0
    equal: int = 0  # resumed exactly at the last announcement
    ahead: int = 0  # one committed action further, killed before announcing it
    lost: list[str] = field(default_factory=list)  # what went wrong, one line each: must stay empty
    restart_seconds: list[float] = field(default_factory=list)


def digest(game: Any, state: Any) -> str:
    """A short fingerprint of a state, the same however the state was rebuilt."""
    text = json.dumps(game.state_to_json(state), sort_keys=True, separators=(",", ":"))
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def run(args: argparse.Namespace) -> int:
    from companion.bench.stats import summary
    from companion.errors import UserError

    if args.kills < 1 or args.most <= 0:
        raise UserError("bench kill: --kills must be at least 1 and --most above 0")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="orrery-kill-") as work:
        report = kill_and_restart(Path(work) / "table.db", args.game, args.players, args.seed, args.kills, args.most)
    print(f"Killed {report.kills} times during {args.game} twin games ({time.monotonic() - started:.0f} s)")
    print(f"  resumed at the last announcement {report.equal}, one committed action ahead {report.ahead}")
    print(f"  lost announcements {len(report.lost)}")
    for line in report.lost[:10]:
        print(f"    {line}")
    print(f"  resume after a kill  {summary(report.restart_seconds, 1e3, 'ms')}")
    return 1 if report.lost else 0


def kill_and_restart(db: Path, game: str, players: int, seed: int, kills: int, most: float) -> KillReport:
    rng = random.Random(seed)
    report = KillReport()
    announced: list[tuple[int, int, str]] = []  # every announcement so far, across restarts
    for round_ in range(kills):
        announced += _run_child_until_killed(db, game, players, seed + round_, rng.uniform(0.05, most))
        report.kills += 1
        _check(db, announced, report)
    return report


def _run_child_until_killed(db: Path, game: str, players: int, seed: int, after: float) -> list[tuple[int, int, str]]:
    """Starts a child, kills it `after` seconds into its play; returns its announcements (game, entry, digest)."""
    command = [sys.executable, "-m", "companion.bench.kill", str(db), game, str(players), str(seed)]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, start_new_session=True)
    assert child.stdout is not None
    lines: list[str] = []
    playing = threading.Event()

    def read() -> None:
        for line in child.stdout:
            lines.append(line)
            if line.startswith("playing"):
                playing.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    playing.wait(30)
    time.sleep(after)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    reader.join(5)
    found = []
    for line in lines:
        if line.startswith("A "):
            _, game_id, entry, state = line.split()
            found.append((int(game_id), int(entry), state))
    return found


def _check(db: Path, announced: list[tuple[int, int, str]], report: KillReport) -> None:
    from companion.table.session import Session
    from companion.table.store import Store

    if not announced:
        report.equal += 1  # killed before its first announcement: nothing was promised yet
        return
    game_id, entry_id, state = announced[-1]
    started = time.monotonic()
    store = Store(db)
    try:
        session = Session.resume(store, game_id)
        report.restart_seconds.append(time.monotonic() - started)
        assert session is not None
        entries = list(store.entries(game_id))
        missing = {entry for game, entry, _ in announced if game == game_id} - {entry.id for entry in entries}
        later = [entry for entry in entries if entry.id > entry_id]
        if missing:
            report.lost.append(f"game {game_id}: announced entries {sorted(missing)} are not in the log")
        elif digest(session.game, session.state) == state and not [e for e in later if e.kind != "note"]:
            report.equal += 1
        elif len(later) == 1:
            report.ahead += 1
        else:
            report.lost.append(f"game {game_id}: resumed state differs from announcement {entry_id}")
    finally:
        store.close()


def _child(db: str, game: str, players: int, seed: int) -> None:
    """Plays twin games into `db`, resuming the unfinished one, printing each announcement once it is made."""
    from companion.sim.table_setup import make_twin

    while True:
        twin = make_twin(game, players, seed, "virtual", db, mess=0.2, illegal=0.05)  # (the unfinished game resumes)
        session = twin.session

        def told(entry: Any, session: Any = session) -> None:
            print(f"A {session.record.id} {entry.id} {digest(session.game, session.state)}", flush=True)

        session.entries.subscribe(told)
        with twin:
            print("playing", flush=True)
            twin.play()
        seed += 1000


if __name__ == "__main__":
    _child(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
