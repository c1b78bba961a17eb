"""`companion calibrate camera | board | colours`: make the camera profile `companion vision detect` reads.

The `calibrate` group itself is made in companion/cli/calibrate.py; it calls `register_calibrate` with its
subparsers. Heavy imports (OpenCV) stay inside the handlers.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from companion.rules import DEFAULT

if TYPE_CHECKING:
    import numpy as np

    from companion.boards.model import Board
    from companion.sensing.pieces import Registry
    from companion.sensing.vision_profile import CameraProfile


def register_calibrate(calibrate_subparsers: argparse._SubParsersAction) -> None:
    camera = calibrate_subparsers.add_parser(
        "camera", help="intrinsics and lens distortion from photos of the ChArUco target (`companion print charuco`)"
    )
    camera.add_argument(
        "--images",
        nargs="+",
        required=True,
        metavar="IMAGE",
        help="photos of the target (files or folders), tilted and spread over the frame",
    )
    camera.add_argument("--out", required=True, help="camera profile to write")
    camera.add_argument("--name", help="camera name stored in the profile (default: the profile's file name)")
    camera.set_defaults(run=_camera)

    board = calibrate_subparsers.add_parser("board", help="the camera's pose over the board, from its corner markers")
    board.add_argument("--board", default=DEFAULT, help=f"game name or board file (default {DEFAULT})")
    board.add_argument("--image", required=True, help="a photo of the whole board from the mounted camera")
    board.add_argument("--profile", required=True, help="camera profile with intrinsics (`calibrate camera`)")
    board.add_argument("--out", required=True, help="profile to write (may be the same file)")
    board.add_argument("--registry", help="piece registry file (default: the game's), for the sticker sizes")
    board.set_defaults(run=_board)

    colours = calibrate_subparsers.add_parser(
        "colours", help="colour ranges of pieces without stickers, from a photo of known pieces on known sites"
    )
    colours.add_argument("--board", default=DEFAULT, help=f"game name or board file (default {DEFAULT})")
    colours.add_argument("--image", required=True, help="a photo of the board with the laid-out pieces")
    colours.add_argument(
        "--layout", required=True, help='JSON file: site id -> piece entry id, e.g. {"o1s0": "scout-red"}'
    )
    colours.add_argument("--registry", help="piece registry file (default: the game's)")
    colours.add_argument("--profile", required=True, help="camera profile with intrinsics")
    colours.add_argument("--out", required=True, help="profile to write (may be the same file)")
    colours.set_defaults(run=_colours)


def _camera(args: argparse.Namespace) -> int:
    from pathlib import Path

    from companion.calibration.images import read_images
    from companion.calibration.intrinsics import calibrate_intrinsics
    from companion.sensing.vision_profile import save_profile

    result = calibrate_intrinsics(read_images(args.images), args.name or Path(args.out).stem)
    save_profile(result.profile, args.out)
    p = result.profile
    (fx, _, cx), (_, fy, cy), _ = p.matrix
    print(
        f"{len(result.used)} of {len(result.used) + len(result.skipped)} images used; RMS reprojection error "
        f"{result.rms_px:.3f} px"
    )
    print(
        f"  focal {fx:.1f} x {fy:.1f} px, centre ({cx:.1f}, {cy:.1f}), distortion "
        f"{', '.join(f'{v:.4f}' for v in p.distortion)}"
    )
    for name in result.skipped:
        print(f"  skipped (too little of the target): {name}")
    if result.rms_px > 1.0:
        print("  warning: an RMS above 1 px means blurred photos or a target that is not flat")
    for line in describe_sharpness(p.sharpness):
        print(line)
    print(f"written to {args.out}")
    return 0


def describe_sharpness(sharpness) -> list[str]:
    """What `calibrate camera` says of the lens's blur on the target's markers."""
    from companion.calibration.mounting import BLURRED_PX

    if sharpness is None:
        return [
            "  the lens's blur was not measured: the target's markers are under 24 px in every photo (take some "
            "photos closer); `calibrate board` measures it on the board"
        ]
    lines = [
        f"  the lens blurs by {sharpness.blur_px:.2f} px (a Gaussian's sigma, the median of {sharpness.photos} "
        f"photos; {sharpness.sharpest_px:.2f} px in the sharpest), written to the profile"
    ]
    if sharpness.sharpest_px > BLURRED_PX:
        lines.append(
            f"  warning: even the sharpest photo shows over {BLURRED_PX:g} px of blur: focus the lens (or "
            f"hold the target still) and take the photos again; a blurred lens needs larger stickers"
        )
    return lines


def _board(args: argparse.Namespace) -> int:
    from dataclasses import replace

    import numpy as np

    from companion.calibration.board_pose import calibrate_pose
    from companion.calibration.mounting import board_blur, check_mounting, describe
    from companion.sensing.camera import read_image
    from companion.sensing.pieces import has_registry
    from companion.sensing.vision_pose import Pose
    from companion.sensing.vision_profile import load_profile, save_profile
    from companion.sensing.vision_setup import resolve_board, resolve_registry

    board = resolve_board(args.board)
    profile = load_profile(args.profile)
    image = read_image(args.image)
    pose = calibrate_pose(image, board, profile, args.image)
    blur = board_blur(image, board)  # the vision starts from it, and the mounting is judged by it
    save_profile(profile.with_pose(replace(pose, blur_px=blur)), args.out)
    print(
        f"board {board.name!r}: pose from the corner markers, reprojection error {pose.reprojection_px:.3f} px; "
        f"written to {args.out}"
    )
    if args.registry or has_registry(board.name):
        registry = resolve_registry(args.registry, board)
        check = check_mounting(board, registry, profile, Pose(np.array(pose.rvec), np.array(pose.tvec)), blur)
        for line in describe(check, profile.image_size):
            print(line)
        _beside_checks(board, registry, profile, image)
    return 0


def _beside_checks(board: Board, registry: Registry, profile: CameraProfile, image: np.ndarray) -> None:
    """Each board the game lays beside its own (Orbital Battle's planet maps) judged as its own board is, where the
    photo shows it: one camera reads them all, and a mounting that suits the solar map may leave a planet map's
    counters too small or too blurred. A map refused is said by name with what to change; the camera then reads of
    it only the sites it can, and says the rest unread, never empty."""
    import numpy as np

    from companion.boards import default_board
    from companion.calibration.board_pose import calibrate_pose, find_fiducials
    from companion.calibration.mounting import board_blur, check_mounting, describe
    from companion.errors import UserError
    from companion.sensing.vision_pose import Pose
    from companion.table.beside import boards_beside

    refused, unseen = [], []
    for name in boards_beside(board.name):
        other = default_board(name)
        try:
            pose = calibrate_pose(image, other, profile, name)
        except UserError as error:
            if find_fiducials(image, other):  # in the photo, but its pose is not sure: say why
                print(f"board {name!r} not judged: {error}")
            else:
                unseen.append(name)
            continue
        check = check_mounting(
            other, registry, profile, Pose(np.array(pose.rvec), np.array(pose.tvec)), board_blur(image, other)
        )
        print(f"board {name!r}:")
        for line in describe(check, profile.image_size):
            print(f"  {line}")
        if not check.approved:
            refused.append(name)
    if unseen:
        print(f"not in this photo, not judged: {', '.join(unseen)}")
    if refused:
        print(
            f"refused for {', '.join(refused)}: the camera reads there only the sites it can and says the rest "
            "unread (the grid, or a tap on a phone, decides them) until the mounting is changed as said"
        )


def _colours(args: argparse.Namespace) -> int:
    from companion.calibration.board_pose import calibrate_pose
    from companion.calibration.colours import check_colours, load_layout, sample_colours
    from companion.sensing.camera import read_image
    from companion.sensing.vision_profile import load_profile, save_profile
    from companion.sensing.vision_setup import resolve_board, resolve_registry

    board = resolve_board(args.board)
    registry = resolve_registry(args.registry, board)
    profile = load_profile(args.profile)
    layout = load_layout(args.layout, board, registry)
    image = read_image(args.image)
    pose = calibrate_pose(image, board, profile, args.image)  # this photo's own pose: the camera may have moved
    found = sample_colours(image, board, registry, profile, pose, layout)
    calibrated = profile.with_colours({**profile.colours, **found})
    save_profile(calibrated, args.out)
    for name, c in sorted(found.items()):
        print(f"  {name:10} HSV {list(c.low)} .. {list(c.high)}")
    print(f"{len(found)} colour range(s) written to {args.out}")
    for line in check_colours(image, board, registry, calibrated, pose, layout):
        print(f"  warning: {line}")
    return 0
