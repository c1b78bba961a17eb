"""`companion camera check [CAMERA]`: can the companion read this camera; one line that says so or what is wrong."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("camera", help="the camera over the table: check that the companion can read it")
    actions = parser.add_subparsers(dest="camera_command", required=True, metavar="ACTION")
    check = actions.add_parser(
        "check",
        help="for the Pi camera, that the system's picamera2 imports and which cameras it sees (without "
        "opening one: the service may hold it); for a webcam, that one frame can be read",
    )
    check.add_argument(
        "camera",
        nargs="?",
        default="picamera",
        help='"picamera" (the default) or a webcam\'s device number, as ORRERY_CAMERA names it',
    )
    check.add_argument(
        "--python",
        help="the Python whose picamera2 to use (default: the system's, the one this environment was made from)",
    )
    check.set_defaults(run=_check)


def _check(args: argparse.Namespace) -> int:
    from companion.errors import UserError

    if args.camera in ("picamera", "pi"):
        from companion.sensing.picamera import check_pi_camera

        print(check_pi_camera(args.python))
        return 0
    if not args.camera.isdigit():
        raise UserError(f'camera check: "{args.camera}" is neither "picamera" nor a webcam\'s device number')
    from companion.sensing.camera import VideoCaptureSource

    source = VideoCaptureSource(int(args.camera))
    try:
        frame = source.read()
    finally:
        source.close()
    if frame is None:
        raise UserError(f"camera {args.camera}: it opens but gives no picture (is another program reading it?)")
    height, width = frame.image.shape[:2]
    print(f"camera {args.camera}: {width} x {height} frames")
    return 0
