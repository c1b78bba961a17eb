"""The `companion` command. Each command group lives in its own module with `register(subparsers)`."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from companion import __version__
from companion.errors import UserError

# Modules under companion.cli, each adding its commands; heavy imports stay inside their handlers.
COMMANDS = ("demo", "serve", "data", "tls", "token", "scenario", "bench", "printables", "vision", "calibrate",
            "firmware", "grid", "camera")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion", description="Orrery, the table companion for orbital board games."
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"companion.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except UserError as error:
        print(f"companion: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
