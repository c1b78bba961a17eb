"""`companion bench rules`: how fast each game's engine generates legal actions, applies them and plays whole games.

Baseline, measured in the same run: encoding the same states to JSON (what the session pays to snapshot a state),
so the engine's figures can be read against a cost every move already has.
"""

from __future__ import annotations

import argparse
import time

HELP = "rules engines: legal-action generation, apply throughput, random playouts per second"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", nargs="*", help="games to measure (default: all)")
    parser.add_argument("--playouts", type=int, default=20, help="whole random games per game (default 20)")
    parser.add_argument("--seed", type=int, default=1)


def run(args: argparse.Namespace) -> int:
    from companion.bench.stats import summary
    from companion.errors import UserError
    from companion.rules import load, names
    from companion.sim.players import playout

    games = args.games or names()
    for name in games:
        if name not in names():
            raise UserError(f"bench rules: unknown game {name!r} (known: {', '.join(names())})")
    for name in games:
        game = load(name)
        players = _players(game.max_players)
        generate, apply, encode, lengths, results = [], [], [], [], {}
        started = time.perf_counter()
        for index in range(args.playouts):
            seed = args.seed + index
            state = game.setup(players, {}, seed)
            length = 0
            for move in playout(game, state, seed):
                # The playout has applied the move; time each step again on the state before it, one call at a time.
                t0 = time.perf_counter()
                list(game.legal_actions(state))
                t1 = time.perf_counter()
                game.apply(state, move.action)
                t2 = time.perf_counter()
                game.state_to_json(state)
                t3 = time.perf_counter()
                generate.append(t1 - t0)
                apply.append(t2 - t1)
                encode.append(t3 - t2)
                state = move.state
                length += 1
            outcome = game.outcome(state)
            key = outcome.result if outcome else "unfinished"
            results[key] = results.get(key, 0) + 1
            lengths.append(length)
        elapsed = time.perf_counter() - started
        playout_time = elapsed - sum(generate) - sum(apply) - sum(encode)  # the playouts' own work
        print(f"{game.title} ({len(players)} players, {args.playouts} random games, seeds {args.seed}..)")
        print(f"  legal actions  {summary(generate)}")
        print(f"  apply          {summary(apply)}  ({len(apply) / sum(apply):,.0f} applies/s)")
        print(f"  baseline: state to JSON  {summary(encode)}")
        print(
            f"  playouts       {args.playouts / playout_time:.2f} whole games/s, "
            f"median {sorted(lengths)[len(lengths) // 2]} actions a game; results {results}"
        )
    return 0


def _players(count: int) -> list[str]:
    from companion.sim.table_setup import COLOURS

    return list(COLOURS[:count])
