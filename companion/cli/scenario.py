"""`companion scenario run FILE_OR_DIR...`: play scenario files and say which hold."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("scenario", help="run scenario files (docs/scenarios.md)")
    actions = parser.add_subparsers(dest="scenario_command", required=True, metavar="ACTION")
    run = actions.add_parser("run", help="run scenario files or folders of them")
    run.add_argument("paths", nargs="+", metavar="FILE_OR_DIR")
    run.add_argument("-v", "--verbose", action="store_true", help="print each scenario's announcements")
    run.set_defaults(run=_run)


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
