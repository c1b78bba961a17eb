"""Command groups whose members are modules: each module has HELP, add_arguments(parser) and run(args) -> int."""

from __future__ import annotations

import argparse
import importlib


def add_module_commands(subparsers: argparse._SubParsersAction, modules: dict[str, str]) -> None:
    """One subcommand per module, named by `modules` (name -> module path); imported now, heavy imports stay lazy."""
    for name, module_name in modules.items():
        module = importlib.import_module(module_name)
        command = subparsers.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(run=module.run)
