"""`companion demo`: the digital twin plays a whole game while the companion referees and announces it."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("demo", help="watch scripted players play a whole game on a simulated board")
    parser.add_argument("--game", default="trajectory", help="which game (default trajectory)")
    parser.add_argument("--players", type=int, default=3, help="how many players (default 3)")
    parser.add_argument("--seed", type=int, default=1, help="the game's seed (default 1)")
    parser.add_argument(
        "--speed",
        type=float,
        default=4.0,
        help="actions a second at most (default 4; 0 plays as fast as the board settles)",
    )
    parser.add_argument(
        "--grid", default="virtual", help="virtual (default) or simavr: the real firmware in the simulator"
    )
    parser.add_argument("--db", help="SQLite file for the game's log (default: a temporary one)")
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from companion.errors import UserError
    from companion.sim.table_setup import make_twin

    if args.speed < 0:
        raise UserError("demo: --speed must be 0 or more")
    twin = make_twin(
        args.game,
        args.players,
        args.seed,
        args.grid,
        args.db,
        mess=0.2,
        illegal=0.05,
        pace=1 / args.speed if args.speed else 0.0,
    )
    session = twin.session
    print(
        f"{session.game.title}: {args.players} scripted players on a simulated board ({args.grid} grid), "
        f"seed {args.seed}. Log: {session.store.path}"
    )
    session.subscribe(lambda entry: [print(f"  {event['text']}", flush=True) for event in entry.events])
    twin.loop.on_warning = lambda w: print(f"  ! {w.text}" if w else "  ! The board matches the game again.")
    with twin:
        print(f"  {session.game.phase(session.state).prompt}")
        stats = twin.play()
    outcome = session.game.outcome(session.state)
    print(f"Result: {outcome.result} ({outcome.reason})" if outcome else "Result: unfinished")
    print(
        f"Board moves {stats.board_moves} ({stats.taps} settled on a phone), phone inputs {stats.phone_inputs}, "
        f"messy hands {stats.messy}, illegal moves caught {stats.illegal_caught} of {stats.illegal_tried}, "
        f"wrong moves accepted {stats.wrong_accepted}."
    )
    return 0 if stats.wrong_accepted == 0 else 1
