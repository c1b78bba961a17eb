"""The `companion` command. Each command group lives in its own module with `register(subparsers)`."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import pwd
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

# numpy's BLAS (OpenBLAS) runs every product over a few thousand numbers on a thread per core, and its threads spin
# while they wait. The companion's products are small (a sticker's samples against the codebook, the light's fit)
# and each runs on a thread of the table's own (camera, grid, web): BLAS's threads only take the cores from them,
# and on a busy core cost several times the product (measured: a settled 12 MP change, 30 ms of CPU time against
# 22 ms). Set before numpy is first imported, which no command does before this module.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from companion import __version__
from companion.errors import UserError

# Modules under companion.cli, each adding its commands; heavy imports stay inside their handlers.
COMMANDS = (
    "demo",
    "serve",
    "data",
    "tls",
    "token",
    "scenario",
    "bench",
    "printables",
    "vision",
    "calibrate",
    "firmware",
    "grid",
    "camera",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion", description="Orrery, the table companion for orbital board games."
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"companion.cli.{name}").register(sub)
    return parser


def denied(error: PermissionError, argv: Sequence[str]) -> str:
    """One line for a file this user may not touch: whose it is, and the command again as its owner."""
    if error.filename is None:
        return f"permission denied ({error.strerror})"
    path = Path(error.filename)
    for here in (path, *path.parents):  # the nearest this user may look at
        with contextlib.suppress(OSError):
            uid = here.stat().st_uid
            break
    else:
        return f"{path}: permission denied"
    if uid == os.geteuid():
        return f"{path}: permission denied (it is yours: check its mode)"
    owner = pwd.getpwuid(uid).pw_name
    program = sys.argv[0] if Path(sys.argv[0]).name == "companion" else "companion"
    again = ["sudo", *(["-u", owner] if owner != "root" else []), program, *argv]
    return f"{path}: permission denied ({here} belongs to {owner}): {shlex.join(again)}"


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except UserError as error:
        print(f"companion: {error}", file=sys.stderr)
        return 2
    except PermissionError as error:  # the Pi's files are the service user's: say whose, not a traceback
        print(f"companion: {denied(error, argv)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
