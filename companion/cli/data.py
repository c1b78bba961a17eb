"""`companion data`: the data sets a table offers its phones for the options that name files (a board, a deck,
terrain, card data). Phones choose among them by name and never give a path (companion/table/datasets.py)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.table.datasets import DataSets


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("data", help="the data sets (boards, decks, terrain) a table offers its phones")
    commands = parser.add_subparsers(dest="data_command", required=True)
    add = commands.add_parser("add", help="add a file or folder under a name the phones may choose")
    add.add_argument("game", help="the game (orbit, dakalio, orbital_battle, periorbis)")
    add.add_argument(
        "option",
        help="the option it is for (orbit: board, deck; dakalio: mat; orbital_battle: planet_files; periorbis: data)",
    )
    add.add_argument("name", help="the name the phones see (lower-case letters, digits, - and _)")
    add.add_argument("path", help="the file (or, for periorbis data, the folder) to copy in")
    listing = commands.add_parser("list", help="the data sets the table offers")
    export = commands.add_parser("export", help="write data sets as one library file to share")
    export.add_argument("file", help="the library file to write")
    export.add_argument(
        "sets",
        nargs="*",
        metavar="GAME/OPTION/NAME",
        help="the sets to write, as orbit/board/my-copy (default: every set of the table)",
    )
    imported = commands.add_parser("import", help="add every data set of a library file, each checked by its game")
    imported.add_argument("file", help="the library file to read")
    imported.add_argument("--name", help="add a file of one set under this name instead of its own")
    imported.add_argument(
        "--replace",
        action="store_true",
        help="replace a set the table holds under the same name (without it, such a file adds nothing)",
    )
    for each in (add, listing, export, imported):
        each.add_argument(
            "--db",
            default="companion.db",
            help="the table's database; its data sets are in the folder datasets beside it (default companion.db)",
        )
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from companion.errors import UserError
    from companion.rules import SetupError
    from companion.table import library
    from companion.table.datasets import DataSets, data_folder, every_data_option

    sets = DataSets(data_folder(args.db))
    try:
        if args.data_command in ("export", "import"):
            return _library(sets, args)
        if args.data_command == "add":
            target = library.save_file(sets, args.game, args.option, args.name, args.path)
            print(f"{args.game} {args.option}: {args.name!r} is offered to the phones ({target})")
            return 0
    except SetupError as error:
        raise UserError(str(error)) from None
    for game, option, _ in every_data_option():
        names = ", ".join(sets.names(game, option)) or "(the game's own only)"
        print(f"{game} {option}: {names}")
    return 0


def _library(sets: DataSets, args: argparse.Namespace) -> int:
    from companion.jsonfile import read_json, write_json
    from companion.rules import SetupError
    from companion.table import library

    if args.data_command == "import":
        bundle = read_json(args.file, SetupError)
        added = library.import_library(sets, bundle, args.file, args.name, args.replace)
        for game, option, name in added:
            print(f"{game} {option}: {name!r} is offered to the phones")
        return 0
    chosen = []
    for spec in args.sets:
        parts = spec.split("/")
        if len(parts) != 3:
            raise SetupError(f"{spec!r}: name a set as GAME/OPTION/NAME (like orbit/board/my-copy)")
        chosen.append((parts[0], parts[1], parts[2]))
    bundle = library.export(sets, chosen or None)
    write_json(args.file, bundle)
    print(f"{args.file}: {len(bundle['sets'])} data set(s)")
    return 0
