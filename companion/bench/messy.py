"""`companion bench messy`: scripted players with messy hands in the twin; the referee must accept no wrong move.

Counts at least `--moves` board moves over whole games (new seeds until reached): slides across other sites,
pieces lifted and put back, illegal moves put right. Prints wrong moves accepted (the goal: 0) and the share of board
moves settled without a phone tap, beside the baseline of the same games with tidy hands. With `--camera` the same
messy games (same seeds, same moves) are played again with the rendered camera over the table too, so the taps the
camera saves are measured on the very same moves. ORBIT's games go round its four tables (four players, partners,
dual spaceships, every module on the back side) unless `--players` or `--option` names one.
"""

from __future__ import annotations

import argparse
import time

HELP = "messy hands in the twin: wrong moves accepted (must be 0) and moves settled without a tap"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--moves", type=int, default=500, help="board moves to play at least (default 500)")
    parser.add_argument("--game", default="trajectory")
    parser.add_argument("--players", type=int, help="players (default 3, or ORBIT's four tables in turn)")
    parser.add_argument("--grid", default="virtual", help="virtual (default) or simavr")
    parser.add_argument("--camera", action="store_true", help="also play the messy games with the rendered camera")
    parser.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE",
        help="a game option, e.g. --option mode=dual (VALUE is read as JSON when it can be)",
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from companion.cli.options import game_options
    from companion.errors import UserError
    from companion.sim.game_layouts import GAME_TABLES, Table
    from companion.sim.table_setup import COLOURS, make_twin

    if args.moves < 1:
        raise UserError("bench messy: --moves must be 1 or more")
    options = game_options(args.option, "bench messy")
    tables = GAME_TABLES.get(args.game, ())
    if args.players is not None or options or not tables:
        tables = (Table(COLOURS[: args.players or 3], options),)
    print(f"{args.game}: " + "; ".join(f"{len(t.players)} players {dict(t.options) or ''}".strip() for t in tables))
    failed = 0
    rows = [("messy, grid alone", 0.5, 0.1, False), ("tidy, grid alone (baseline)", 0.0, 0.0, False)]
    if args.camera:
        rows.insert(1, ("messy, grid and rendered camera", 0.5, 0.1, True))
    for label, mess, illegal, camera in rows:
        totals: dict[str, int] = {}
        seed, started = 1, time.monotonic()
        while totals.get("board_moves", 0) < args.moves:
            table = tables[(seed - 1) % len(tables)]
            twin = make_twin(args.game, len(table.players), seed, args.grid, None, mess, illegal, camera=camera,
                             options=table.options)
            with twin:
                stats = twin.play()
            for key, value in vars(stats).items():
                totals[key] = totals.get(key, 0) + value
            seed += 1
        moves = totals["board_moves"]
        print(f"{label}: {moves} board moves in {seed - 1} games, {time.monotonic() - started:.0f} s")
        print(
            f"  wrong moves accepted {totals['wrong_accepted']}; illegal moves caught {totals['illegal_caught']} "
            f"of {totals['illegal_tried']}; messy hands {totals['messy']}"
        )
        print(f"  settled without a phone tap: {100 * (moves - totals['taps']) / moves:.1f}% ({totals['taps']} taps)")
        failed += totals["wrong_accepted"]
    return 1 if failed else 0
