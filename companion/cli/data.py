"""`companion data`: the data sets a table offers its phones for the options that name files (a board, a deck,
terrain, card data). Phones choose among them by name and never give a path (companion/table/datasets.py)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("data", help="the data sets (boards, decks, terrain) a table offers its phones")
    commands = parser.add_subparsers(dest="data_command", required=True)
    add = commands.add_parser("add", help="add a file or folder under a name the phones may choose")
    add.add_argument("game", help="the game (orbit, orbital_battle, periorbis)")
    add.add_argument("option", help="the option it is for (orbit: board, deck; orbital_battle: planet_files; "
                     "periorbis: data)")
    add.add_argument("name", help="the name the phones see (lower-case letters, digits, - and _)")
    add.add_argument("path", help="the file (or, for periorbis data, the folder) to copy in")
    listing = commands.add_parser("list", help="the data sets the table offers")
    for each in (add, listing):
        each.add_argument("--db", default="companion.db", help="the table's database; its data sets are in the "
                          "folder datasets beside it (default companion.db)")
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from companion.errors import UserError
    from companion.rules import SetupError
    from companion.table.datasets import FILE_OPTIONS, DataSets, data_folder

    sets = DataSets(data_folder(args.db))
    if args.data_command == "add":
        try:
            target = sets.add(args.game, args.option, args.name, args.path)
        except SetupError as error:
            raise UserError(str(error)) from None
        print(f"{args.game} {args.option}: {args.name!r} is offered to the phones ({target})")
        return 0
    for game, options in FILE_OPTIONS.items():
        for option in options:
            names = ", ".join(sets.names(game, option)) or "(the game's own only)"
            print(f"{game} {option}: {names}")
    return 0
