"""`companion bench messy`: whole games of all five games played at the twin's table with natural hands.

The scripted players play to win (companion/sim/players.py) and their hands carry every action out piece by piece
in the order people do: move then remove, remove then place, place then tap, with slides, lifts and knocks
(companion/sim/hands.py), over the simulated reed grid (with `--camera`, also the rendered camera where the game
has a piece registry: seconds a frame, so not by default). Printed per game: actions, board moves, wrong bookings
(the table booked what the hand did not do: must be 0), advice to undo (the table told a player to put back what
their legal move had already done: must be 0), the board moves the board alone tells apart that were settled
without a tap (goal: 95 % or more) and taps per move.

By default each table plays one short whole game: ORBIT's four tables, Dakalio's two modes, Orbital Battle (combat
and landings, to a turn limit), Trajectory and Periorbis (the short game). `--games`, `--game`, `--players` and
`--option` widen or narrow it.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

HELP = "whole games of all five games with natural hands: wrong bookings and advice to undo (must be 0), taps"


@dataclass(frozen=True)
class Bench:
    """One row of the table: a game with its players and options."""

    game: str
    label: str
    players: int
    options: Mapping[str, Any] = field(default_factory=dict)


def default_benches() -> list[Bench]:
    from companion.sim.game_layouts import ORBIT_TABLES

    orbit = [
        Bench("orbit", "ORBIT " + (str(dict(t.options).get("mode", "")) or ("modules" if t.options else "4 players")),
              len(t.players), t.options)
        for t in ORBIT_TABLES
    ]
    return [
        *orbit,
        Bench("dakalio", "Dakalio simple", 2, {"mode": "simple"}),
        Bench("dakalio", "Dakalio supremacy", 2, {"mode": "supremacy"}),
        Bench("orbital_battle", "Orbital Battle", 2, {"turn_limit": 4}),
        Bench("trajectory", "Trajectory", 3),
        Bench("periorbis", "Periorbis short", 3, {"length": "short"}),
    ]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=1, help="whole games per row (default 1)")
    parser.add_argument("--game", help="only this game's rows (default: all five games)")
    parser.add_argument("--players", type=int, help="one row with this many players (with --game)")
    parser.add_argument("--grid", default="virtual", help="virtual (default) or simavr")
    parser.add_argument("--camera", action="store_true",
                        help="the rendered camera over the table too, where the game has one (slow: seconds a frame)")
    parser.add_argument("--no-beside", dest="beside", action="store_false",
                        help="the boards a game places beside its own (Orbital Battle's planet maps) on no grid: with "
                        "--camera the camera alone reads them, else their moves are declared on the phones, as at a "
                        "table of one grid (default: each on a grid of its own)")
    parser.add_argument("--settle", type=float, default=0.12, help="the settle window in seconds (default 0.12)")
    parser.add_argument("--max-actions", type=int, default=3000, help="a game not over by then is an error")
    parser.add_argument("--findings", type=int, default=3, help="lines of findings to print per row (default 3)")
    parser.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE",
        help="a game option for one row (with --game), e.g. --option mode=dual",
    )  # fmt: skip


def choose(args: argparse.Namespace) -> list[Bench]:
    from companion.cli.options import game_options
    from companion.errors import UserError
    from companion.rules import names

    if args.games < 1 or args.max_actions < 1 or args.settle <= 0:
        raise UserError("bench messy: --games and --max-actions must be 1 or more, --settle above 0")
    benches = default_benches()
    if args.game is None:
        if args.players is not None or args.option:
            raise UserError("bench messy: --players and --option need --game")
        return benches
    if args.game not in names():
        raise UserError(f"bench messy: unknown game {args.game!r} (known: {', '.join(names())})")
    options = game_options(args.option, "bench messy")
    if args.players is not None or options:
        mine = [b for b in benches if b.game == args.game]
        players = args.players or (mine[0].players if mine else 2)
        return [Bench(args.game, args.game, players, options)]
    return [b for b in benches if b.game == args.game] or [Bench(args.game, args.game, 2)]


def run(args: argparse.Namespace) -> int:
    from companion.errors import UserError
    from companion.rules import SetupError
    from companion.sim.hand_play import HandStats, HandTable
    from companion.sim.table_setup import make_twin

    benches = choose(args)
    header = (f"{'game':<22}{'actions':>8}{'moves':>7}{'wrong':>7}{'undo':>6}{'untapped':>16}{'taps/move':>10}"
              f"{'illegal caught':>15}{'s':>6}  judge ms: median, p95, p99")
    print(f"whole games with natural hands ({args.games} per row, settle {args.settle} s, grid {args.grid}"
          f"{', camera where the game has one' if args.camera else ', grid alone'}"
          f"{'' if args.beside else ', planet maps by the camera alone' if args.camera else ', planet maps unsensed'})")
    print(header)
    failed = 0
    for bench in benches:
        totals, findings, started = HandStats(), [], time.monotonic()
        for seed in range(1, args.games + 1):
            try:
                twin = make_twin(bench.game, bench.players, seed, args.grid, None, 0.0, 0.0,
                                 camera=None if args.camera else False, options=bench.options, beside=args.beside)
            except SetupError as error:
                raise UserError(f"bench messy: {bench.label}: {error}") from None
            twin.observer.settle = args.settle
            with twin:
                table = HandTable(twin, seed)
                totals.add(table.play(args.max_actions))
            findings += table.findings
        print(row(bench.label, totals, time.monotonic() - started))
        # Wrong bookings first: they are the failures that must never happen.
        findings.sort(key=lambda line: "wrong booking" not in line)
        for line in findings[: args.findings]:
            print(f"    {line[:200]}")
        failed += totals.wrong_bookings
    print("moves: actions that change what the sensors see; wrong: bookings of another action than the hand's "
          "(goal 0); undo: moves during which the table advised to undo them (goal 0); untapped: moves the board "
          "alone tells apart settled without a tap (goal >= 95 %); taps/move: phone taps per move; illegal caught: "
          "pieces set where no rule allows that the table warned about; judge ms: the referee's time over each settled "
          "board of the games (median, p95, p99)")
    return 1 if failed else 0


def row(label: str, s: Any, seconds: float) -> str:
    from companion.bench.stats import percentile

    share = f"{100 * s.tellable_untapped / s.tellable:.0f}% of {s.tellable}" if s.tellable else "-"
    per_move = f"{s.board_taps / s.board_changes:.2f}" if s.board_changes else "-"
    illegal = f"{s.illegal_caught} of {s.illegal_tried}"
    times = s.judge_seconds or [0.0]
    judge = ", ".join(f"{percentile(times, q) * 1e3:.2f}" for q in (0.5, 0.95, 0.99))
    return (f"{label:<22}{s.actions:>8}{s.board_changes:>7}{s.wrong_bookings:>7}{s.undo_advice:>6}{share:>16}"
            f"{per_move:>10}{illegal:>15}{seconds:>6.0f}  {judge}")
