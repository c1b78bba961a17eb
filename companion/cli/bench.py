"""`companion bench NAME`: the project's benchmarks, each printing its own figures."""

from __future__ import annotations

import argparse

from companion.cli.modules import add_module_commands

# name -> module in companion.bench with HELP, add_arguments(parser) and run(args) -> int
BENCHES = {
    "rules": "companion.bench.rules",
    "messy": "companion.bench.messy",
    "reed": "companion.bench.reed",
    "vision": "companion.bench.vision",
    "fuzz": "companion.bench.fuzz",
    "referee": "companion.bench.referee",
    "kill": "companion.bench.kill",
    "latency": "companion.bench.latency",
    "web": "companion.bench.web",
}


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("bench", help="run a benchmark and print its figures")
    benches = parser.add_subparsers(dest="bench", required=True, metavar="BENCH")
    add_module_commands(benches, BENCHES)
