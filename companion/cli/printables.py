"""`companion print`: true-scale SVG printables (board overlay, piece stickers, the camera's ChArUco target).

The module is not called print.py: as an attribute of companion.cli it would shadow the builtin print there.
"""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("print", help="write a printable SVG at true scale (print at 100%%)")
    what = parser.add_subparsers(dest="printable", required=True, metavar="WHAT")
    board = what.add_parser("board", help="the board overlay with fiducials and site marks")
    board.add_argument("game", metavar="GAME", help="game name or board file")
    stickers = what.add_parser("stickers", help="a sheet of piece stickers with the registry's ids")
    stickers.add_argument("--game", default="trajectory")
    stickers.add_argument("--registry", help="piece registry file (default: the game's)")
    what.add_parser("charuco", help="the ChArUco target for `companion calibrate camera`")
    for p in what.choices.values():
        p.add_argument("--out", "-o", help="output file (default: standard output)")
        p.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from companion.printables.shapes import to_svg

    if args.printable == "board":
        from companion.printables.overlay import board_drawing
        from companion.sensing.vision_setup import resolve_board

        drawing = board_drawing(resolve_board(args.game))
    elif args.printable == "stickers":
        from companion.printables.stickers import sticker_sheet
        from companion.sensing.pieces import default_registry, load_registry

        drawing = sticker_sheet(load_registry(args.registry) if args.registry else default_registry(args.game))
    else:
        from companion.calibration.charuco import charuco_drawing

        drawing = charuco_drawing()
    svg = to_svg(drawing)
    if args.out:
        Path(args.out).write_text(svg)
        print(f"{args.out}: {drawing.width:g} x {drawing.height:g} mm; print at 100% (no fit-to-page)",
              file=sys.stderr)
    else:
        sys.stdout.write(svg)
    return 0
