"""`companion demo`: scripted players play a whole game while the companion announces it."""

from __future__ import annotations

import argparse
import time


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("demo", help="watch scripted players play a whole game, refereed and announced")
    parser.add_argument("--game", default="trajectory", help="which game (default trajectory)")
    parser.add_argument("--players", type=int, default=3, help="how many players (default 3)")
    parser.add_argument("--seed", type=int, default=1, help="the game's seed (default 1)")
    parser.add_argument(
        "--speed", type=float, default=4.0, help="announcements a second (default 4; 0 prints the whole game at once)"
    )
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from companion.errors import UserError
    from companion.rules import SetupError, load, names
    from companion.sim.players import playout

    if args.game not in names():
        raise UserError(f"demo: unknown game {args.game!r} (known: {', '.join(names())})")
    if args.speed < 0:
        raise UserError("demo: --speed must be 0 or more")
    game = load(args.game)
    colours = ["red", "green", "blue", "yellow", "orange", "purple"]
    try:
        state = game.setup(colours[: args.players], {}, args.seed)
    except SetupError as error:
        raise UserError(f"demo: {error}") from None
    pause = 1 / args.speed if args.speed else 0.0
    print(f"{game.title}: {args.players} scripted players, seed {args.seed}.")
    last_prompt = None
    for move in playout(game, state, args.seed):
        phase = game.phase(move.state)
        for event in move.events:
            print(f"  {event.text}")
            time.sleep(pause)
        if phase.prompt != last_prompt and phase.name != "over":
            print(f"[round {phase.round}] {phase.prompt}")
            last_prompt = phase.prompt
        state = move.state
    outcome = game.outcome(state)
    print(f"Result: {outcome.result if outcome else 'unfinished'}" + (f" ({outcome.reason})" if outcome else ""))
    return 0
