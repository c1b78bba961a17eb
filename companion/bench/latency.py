"""`companion bench latency`: from a reed switch closing in the real firmware (simavr, real time) to the announcement
reaching a phone's stream, through everything `companion serve` runs: the host link, the observer and its settle
window, the referee, the session's commit to SQLite, the hub and the SSE stream over HTTP.

The scripted table makes one board move every 1/rate seconds (10 a second by default), each a move the grid alone
can settle; what a phone must declare in between is submitted untimed. The settle window must be shorter than the gap
between moves, so the bench sets it (--settle) and prints it with the firmware's debounce: the figures read as
"debounce + settle + N ms". Baseline, in the same run: a phone's action from its submission to the same stream, the
part of the path that has nothing to do with the board.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HELP = "switch closing in the simulated firmware to the announcement on a phone's stream, at 10 moves a second"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--moves", type=int, default=100, help="board moves to time (default 100)")
    parser.add_argument("--rate", type=float, default=10.0, help="board moves a second (default 10)")
    parser.add_argument("--settle", type=float, default=0.05, help="the settle window in seconds (default 0.05)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--build", type=Path, default=Path("build/firmware"), help="where to build the firmware")


class Stream:
    """A phone's SSE stream: the arrival time of each announcement, by entry id."""

    def __init__(self, port: int) -> None:
        self.arrived: dict[int, float] = {}
        self.changed = threading.Condition()
        self._connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self._connection.request("GET", "/events")
        self._response = self._connection.getresponse()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        event = ""
        try:
            while line := self._response.readline():
                if line.startswith(b"event: "):
                    event = line[7:].strip().decode()
                elif line.startswith(b"data: ") and event == "entry":
                    entry = json.loads(line[6:])
                    with self.changed:
                        self.arrived[entry["id"]] = time.monotonic()
                        self.changed.notify_all()
        except (OSError, ValueError, AttributeError):  # the stream closed under the reader at the end
            return

    def wait(self, entry_id: int, timeout: float = 5.0) -> float | None:
        with self.changed:
            self.changed.wait_for(lambda: entry_id in self.arrived, timeout)
            return self.arrived.get(entry_id)

    def close(self) -> None:
        self._connection.close()


def run(args: argparse.Namespace) -> int:
    from companion.bench.stats import summary
    from companion.errors import UserError

    if args.moves < 1 or args.rate <= 0 or not 0 < args.settle < 1 / args.rate:
        raise UserError("bench latency: --moves at least 1, --rate above 0, and --settle between 0 and 1/rate")
    result = measure(args.moves, args.rate, args.settle, args.seed, args.build)
    print(
        f"Switch to phone: {len(result['board'])} board moves at {args.rate:g} a second in {result['games']} "
        f"Trajectory games, firmware (Uno build) in simavr at real time, debounce {result['debounce']} ms, "
        f"settle window {args.settle * 1e3:.0f} ms, {result['missed']} moves not announced"
    )
    print(f"  switch closed -> announcement on the stream  {summary(result['board'], 1e3, 'ms')}")
    print(f"  baseline: phone action -> the same stream     {summary(result['phone'], 1e3, 'ms')}")
    return 1 if result["missed"] else 0


def measure(moves: int, rate: float, settle: float, seed: int, build_dir: Path) -> dict[str, Any]:
    from companion.boards import default_board
    from companion.calibration.grid import GridProfile, save_profile
    from companion.errors import UserError
    from companion.sim.players import random_action
    from companion.sim.simavr_grid import build, simavr_grid
    from companion.sim.twin import switch_map
    from companion.table.config import TableConfig
    from companion.table.live import LiveTable
    from companion.web.serve import start_server, web_table

    try:
        build(build_dir)
    except (RuntimeError, OSError) as error:
        raise UserError(f"bench latency: cannot build the firmware ({str(error).splitlines()[0]})") from None
    board = default_board("trajectory")
    sites = switch_map(board, 8, 8)
    rng = random.Random(seed)
    timed: list[float] = []
    phone: list[float] = []
    missed = 0
    with tempfile.TemporaryDirectory(prefix="orrery-latency-") as work:
        save_profile(GridProfile(board.name, 8, 8, sites), Path(work, "grid.json"))
        grid = simavr_grid("uno", build_dir.resolve(), realtime=True).start()
        config = TableConfig(db=str(Path(work, "t.db")), serial=grid.port, grid_profile=str(Path(work, "grid.json")),
                             seed=seed, settle=settle)  # fmt: skip
        live = LiveTable(config)
        grid.go()

        def closed(layout: Any) -> set[tuple[int, int]]:
            return {sites[s] for s, pieces in layout.items() if pieces and s in sites}

        session = live.session
        grid.set_all(closed(session.game.layout(session.state)))
        live.start(wait=10.0)
        table = web_table(live, token="latency")  # `companion serve`'s web table
        server = start_server(table, "127.0.0.1", 0)
        stream = Stream(server.port)
        debounce = live.link.info.debounce_ms if live.link and live.link.info else 0
        try:
            next_move = time.monotonic()
            games = 1
            while len(timed) + missed < moves:
                if session.game.outcome(session.state) is not None:  # the next game at the same table
                    session = table.new_game("trajectory", list(session.record.players), {}, seed + games)
                    games += 1
                    grid.set_all(closed(session.game.layout(session.state)))
                    time.sleep(settle * 2)
                move = _settleable_move(session)
                if move is None:
                    action = random_action(session.game, session.state, rng)
                    started = time.monotonic()
                    entry = session.submit(action, "phone")
                    arrived = stream.wait(entry.id)
                    if arrived is not None:
                        phone.append(arrived - started)
                    grid.set_all(closed(session.game.layout(session.state)))
                    time.sleep(settle * 2)  # the table makes the board match before the next move
                    continue
                time.sleep(max(0.0, next_move - time.monotonic()))
                next_move = time.monotonic() + 1 / rate
                expected = session.store.last_entry_id() + 1
                started = time.monotonic()
                grid.set_all(closed(move))
                arrived = stream.wait(expected)
                if arrived is None:
                    missed += 1
                else:
                    timed.append(arrived - started)
        finally:
            stream.close()
            server.stop()
            live.stop()
            grid.stop()
    return {"board": timed, "phone": phone, "missed": missed, "debounce": debounce, "games": games}


def _settleable_move(session: Any) -> Any:
    """The layout after a legal board move the grid alone can tell from every other, or None if there is none."""
    from companion.table.referee import board_actions

    game, state = session.game, session.state
    before = _occupied(game.layout(state))
    outcomes: dict[frozenset[str], list[Any]] = {}
    for _, after in board_actions(game, state):
        outcomes.setdefault(_occupied(after), []).append(after)
    unique = [layouts[0] for key, layouts in sorted(outcomes.items(), key=lambda kv: sorted(kv[0])) if
              len(layouts) == 1 and key != before]  # fmt: skip
    return unique[0] if unique else None


def _occupied(layout: Any) -> frozenset[str]:
    return frozenset(site for site, pieces in layout.items() if pieces)
