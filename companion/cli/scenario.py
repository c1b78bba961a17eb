"""`companion scenario run FILE_OR_DIR...`: play scenario files and say which hold; `companion scenario record GAME`:
keep a whole game played by the scripted players as a scenario file."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("scenario", help="run scenario files (docs/scenarios.md)")
    actions = parser.add_subparsers(dest="scenario_command", required=True, metavar="ACTION")
    run = actions.add_parser("run", help="run scenario files or folders of them")
    run.add_argument("paths", nargs="+", metavar="FILE_OR_DIR")
    run.add_argument("-v", "--verbose", action="store_true", help="print each scenario's announcements")
    run.set_defaults(run=_run)
    record = actions.add_parser("record", help="play a whole game with the scripted players and write it as a scenario")
    record.add_argument("game", help="which game")
    record.add_argument("--players", required=True, help="the players in turn order, e.g. red,green,blue")
    record.add_argument("--seed", type=int, default=1, help="the game's seed, which the players' choices follow too")
    record.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE",
        help="a game option, e.g. --option mode=dual (VALUE is read as JSON when it can be)",
    )  # fmt: skip
    record.add_argument("--max-actions", type=int, default=5000, help="give up (and write nothing) after this many")
    record.add_argument("-o", "--out", help="the scenario file to write (default: print it)")
    record.set_defaults(run=_record)


def _run(args: argparse.Namespace) -> int:
    from companion.scenarios import run_files

    passed = failed = 0
    for result in run_files(args.paths):
        label = f"{result.scenario.path}"
        if result.passed:
            passed += 1
            print(f"PASS {label}")
        else:
            failed += 1
            print(f"FAIL {label}: {result.failure}")
        if args.verbose:
            for text in result.events:
                print(f"     {text}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def _record(args: argparse.Namespace) -> int:
    import json

    from companion.cli.options import game_options
    from companion.jsonfile import write_json
    from companion.sim.record import record_game

    players = [name.strip() for name in args.players.split(",") if name.strip()]
    scenario = record_game(args.game, players, game_options(args.option, "scenario record"), args.seed,
                           args.max_actions)  # fmt: skip
    if args.out is None:
        print(json.dumps(scenario, indent=1))
    else:
        write_json(args.out, scenario)
        print(f"{args.out}: {len(scenario['steps'])} steps, {scenario['steps'][-1]['expect']['outcome']['reason']}")
    return 0
