"""`companion print`: true-scale SVG printables (board overlay, piece stickers, the camera's ChArUco target) and the
reed grid's wiring plan (text).

The module is not called print.py: as an attribute of companion.cli it would shadow the builtin print there.
"""

from __future__ import annotations

import argparse
import sys

from companion.rules import DEFAULT


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("print", help="write a printable SVG at true scale (print at 100%%)")
    what = parser.add_subparsers(dest="printable", required=True, metavar="WHAT")
    board = what.add_parser("board", help="the board overlay with fiducials and site marks")
    board.add_argument(
        "game",
        metavar="GAME",
        help="game name, board file, or the name of a board of the table's "
        "(made in the board editor; `companion data list`)",
    )
    board.add_argument(
        "--db",
        default="companion.db",
        help="the table's database; its boards are in the folder datasets beside it (default companion.db)",
    )
    board.add_argument(
        "--reeds",
        action="store_true",
        help="the drilling template: each site's reed and its two "
        "lead holes, one end of the glass at the site's centre",
    )
    board.add_argument(
        "--tiles",
        choices=("a4", "letter"),
        help="cut into overlapping pages of this paper with alignment marks; --out names them "
        "OUT-1.svg, OUT-2.svg, ...",
    )
    stickers = what.add_parser("stickers", help="a sheet of piece stickers with the registry's ids")
    stickers.add_argument("--game", default=DEFAULT)
    stickers.add_argument("--registry", help="piece registry file (default: the game's)")
    what.add_parser("charuco", help="the ChArUco target for `companion calibrate camera`")
    wiring = what.add_parser("wiring", help="the reed grid's wiring plan: each site's row and column line (text)")
    wiring.add_argument(
        "game", metavar="GAME", help="game name (orbital_battle:planet3 for a planet map) or board file"
    )
    wiring.add_argument(
        "--arduino",
        choices=("mega", "uno"),
        help="the grid's Arduino (default: the Uno or Nano for up to 64 sites, else the Mega)",
    )
    for p in what.choices.values():
        p.add_argument("--out", "-o", help="output file (default: standard output)")
        p.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from companion.printables.shapes import to_svg

    if args.printable == "wiring":
        return _print_wiring(args)
    if args.printable == "board":
        from companion.errors import UserError
        from companion.printables.overlay import board_drawing
        from companion.sensing.vision_setup import resolve_board
        from companion.table.datasets import DataSets, data_folder
        from companion.table.game_board import board_names, named_board

        sets = DataSets(data_folder(args.db))
        mine = named_board(sets, args.game)
        try:
            drawing = board_drawing(resolve_board(str(mine) if mine else args.game), reeds=args.reeds)
        except UserError as error:
            raise UserError(f"{error}; this table: {board_names(sets)}" if mine is None else str(error)) from None
    elif args.printable == "stickers":
        from companion.printables.stickers import sticker_sheets
        from companion.sensing.pieces import default_registry, load_registry

        sheets = sticker_sheets(load_registry(args.registry) if args.registry else default_registry(args.game))
        if len(sheets) > 1:
            return _write_pages(
                [(f"sticker sheet {n} of {len(sheets)}", sheet) for n, sheet in enumerate(sheets, start=1)],
                args.out,
                "print stickers",
            )
        drawing = sheets[0]
    else:
        from companion.calibration.charuco import charuco_drawing

        drawing = charuco_drawing()
    if getattr(args, "tiles", None):
        return _write_tiles(drawing, args.tiles, args.out)
    svg = to_svg(drawing)
    if args.out:
        Path(args.out).write_text(svg)
        print(f"{args.out}: {drawing.width:g} x {drawing.height:g} mm; print at 100% (no fit-to-page)", file=sys.stderr)
    else:
        sys.stdout.write(svg)
    return 0


def _print_wiring(args: argparse.Namespace) -> int:
    from pathlib import Path

    from companion.calibration.grid_plan import plan_text, plan_wiring
    from companion.firmware_tools import pin_names
    from companion.sensing.vision_setup import resolve_board

    board = resolve_board(args.game)
    plan = plan_wiring(board, args.arduino)
    text = plan_text(plan, board, *pin_names(plan.arduino))
    if args.out:
        Path(args.out).write_text(text)
        print(f"{args.out}: wiring plan for {len(plan.sites)} sites", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def _write_pages(pages: list, out: str | None, command: str) -> int:
    """Several pages (label, drawing), written as OUT-1.svg, OUT-2.svg, ..."""
    from pathlib import Path

    from companion.errors import UserError
    from companion.printables.shapes import to_svg

    if not out:
        raise UserError(f"{command}: name the pages with --out (e.g. --out sheet writes sheet-1.svg ...)")
    base = Path(out).with_suffix("")
    if not base.parent.is_dir():
        raise UserError(f"{command}: no directory {base.parent} for the pages")
    for number, (label, page) in enumerate(pages, start=1):
        path = base.parent / f"{base.name}-{number}.svg"
        path.write_text(to_svg(page))
        print(f"{path}: {label}", file=sys.stderr)
    return 0


def _write_tiles(drawing, paper: str, out: str | None) -> int:
    from companion.printables.tiles import tiles

    pages = tiles(drawing, paper) if out else []  # without --out: _write_pages says what to do
    _write_pages(pages, out, "print board --tiles")
    print(
        f"{len(pages)} {paper.upper()} pages for a {drawing.width:g} x {drawing.height:g} mm board; print at 100% "
        f"(no fit-to-page), lay each over its neighbour with the crosses on top of each other, trim along the "
        f"dashed line, tape",
        file=sys.stderr,
    )
    return 0
