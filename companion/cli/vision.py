"""`companion vision`: run the camera pipeline on images (`detect`), or render test scenes (`render`)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from companion.rules import DEFAULT

if TYPE_CHECKING:
    from companion.boards.model import Board
    from companion.sensing.pieces import Registry
    from companion.sensing.vision import FrameReport
    from companion.sensing.vision_profile import CameraProfile
    from companion.sensing.vision_table import TableVision


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("vision", help="the camera: sightings from images, rendered test scenes")
    commands = parser.add_subparsers(dest="vision", required=True, metavar="ACTION")

    detect = commands.add_parser("detect", help="sightings for each image, in order (the pose carries over)")
    detect.add_argument("images", nargs="+", metavar="IMAGE", help="image files or folders of images")
    detect.add_argument("--board", default=DEFAULT, help=f"game name or board file (default {DEFAULT})")
    detect.add_argument("--profile", required=True, help="camera profile (calibration/README.md)")
    detect.add_argument("--registry", help="piece registry file (default: the game's)")
    detect.add_argument("--json", action="store_true", help="one JSON document per image, one a line")
    detect.add_argument(
        "--beside",
        action="append",
        default=[],
        metavar="BOARD",
        help="a board lying beside --board, found by its own corner markers and read too "
        "(Orbital Battle's planet maps: orbital_battle:planet3); may be given again",
    )
    detect.set_defaults(run=_detect)

    render = commands.add_parser("render", help="render scenes as the twin's camera sees them, with their profile")
    render.add_argument("--board", default=DEFAULT)
    render.add_argument("--registry")
    render.add_argument("--seed", type=int, default=1)
    render.add_argument("--count", type=int, default=1, help="scenes, seeds SEED.. (default 1)")
    render.add_argument("--size", default="1920x1080", help="WIDTHxHEIGHT (default 1920x1080)")
    render.add_argument("--conditions", choices=("normal", "harsh"), default="normal")
    render.add_argument("--hand", action="store_true", help="a hand over part of the board")
    render.add_argument("--out", required=True, help="folder for scene-SEED.png, scene-SEED.json and profile.json")
    render.set_defaults(run=_render)


def _detect(args: argparse.Namespace) -> int:
    from companion.errors import UserError
    from companion.sensing.camera import ImageSource, frames
    from companion.sensing.vision import Vision
    from companion.sensing.vision_profile import load_profile
    from companion.sensing.vision_setup import resolve_board, resolve_registry

    board = resolve_board(args.board)
    registry = resolve_registry(args.registry, board)
    profile = load_profile(args.profile)
    vision = _table_vision(board, args.beside, registry, profile) if args.beside else Vision(board, registry, profile)
    sources = [ImageSource(path) for path in args.images]  # every path checked before any work
    for source in sources:
        for frame in frames(source):
            try:
                report = vision.process(frame.image, frame.time)
            except UserError as error:
                raise UserError(f"{frame.source}: {error}") from None
            if args.json:
                print(json.dumps({"image": frame.source, **report.to_json()}))
            elif args.beside:
                for where, board_report in report.boards:
                    _print_report(f"{frame.source} [{where.board.name}]", board_report)
            else:
                _print_report(frame.source, report)
    return 0


def _table_vision(board: Board, beside: list[str], registry: Registry, profile: CameraProfile) -> TableVision:
    """One camera over `board` and the boards beside it, their sites named as the game's layout names them."""
    from companion.sensing.vision_setup import resolve_board
    from companion.sensing.vision_table import BoardInView, TableVision
    from companion.table.beside import layout_prefix

    boards = [BoardInView(board)]
    for spec in beside:
        other = resolve_board(spec)
        boards.append(BoardInView(other, layout_prefix(board.name, other.name)))
    return TableVision(boards, registry, profile)


def _print_report(name: str, report: FrameReport) -> None:
    if not report.reliable:
        print(f"{name}: unreliable: {report.reason}")
        return
    moved = "  (the board or camera moved)" if report.moved else ""
    print(f"{name}: {len(report.sightings)} pieces, corner markers {list(report.markers)}{moved}")
    for s in report.sightings:
        where = s.site or f"off-site at ({s.x:.0f}, {s.y:.0f}) mm"
        level = f" level {s.level}" if s.level else ""
        print(f"  {s.piece:24} {where}{level}  confidence {s.confidence:.2f}")
    for region in report.unreliable:
        print(f"  unreliable ({region.reason}): {len(region.sites)} sites {', '.join(region.sites[:8])}")


def _render(args: argparse.Namespace) -> int:
    from pathlib import Path

    import cv2

    from companion.errors import UserError
    from companion.sensing.vision_profile import save_profile
    from companion.sensing.vision_setup import resolve_board, resolve_registry
    from companion.sim.render import Renderer
    from companion.sim.render_camera import CONDITIONS, overhead_camera, sim_profile
    from companion.sim.render_scene import random_scene

    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        raise UserError(f"--size: {args.size!r} is not WIDTHxHEIGHT") from None
    board = resolve_board(args.board)
    registry = resolve_registry(args.registry, board)
    camera = overhead_camera(board.width, board.height, width, height)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    save_profile(sim_profile(camera, board.name), out / "profile.json")
    renderer = Renderer(board, registry.dictionary)
    for seed in range(args.seed, args.seed + args.count):
        scene = random_scene(board, registry, camera, seed, CONDITIONS[args.conditions], hand=args.hand)
        cv2.imwrite(str(out / f"scene-{seed}.png"), renderer.render(scene).image)
        truth = [
            {
                "entry": p.entry.id,
                "piece": p.entry.piece,
                "site": p.site,
                "level": p.level,
                "x": round(p.x, 1),
                "y": round(p.y, 1),
            }
            for p in scene.pieces
        ]
        (out / f"scene-{seed}.json").write_text(json.dumps({"seed": seed, "pieces": truth}, indent=1) + "\n")
    print(f"{args.count} scene(s) and profile.json written to {out}")
    return 0
