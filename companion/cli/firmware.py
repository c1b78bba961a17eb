"""`companion firmware`: build the reed grid's firmware on the Pi, flash it with avrdude, check its handshake."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

BOARD_HELP = "mega (16 x 16), uno or nano (8 x 8); default mega"


def _default_out() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "orrery" / "firmware"


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("firmware", help="build, flash and check the reed grid's Arduino firmware")
    what = parser.add_subparsers(dest="firmware_command", required=True, metavar="WHAT")
    build = what.add_parser("build", help="compile the sketch with gcc-avr and arduino-core-avr")
    flash = what.add_parser("flash", help="build, write it to the Arduino with avrdude, then check the handshake")
    flash.add_argument("--port", required=True, help="the Arduino's serial port (/dev/ttyACM0, /dev/orrery-grid)")
    check = what.add_parser("check", help="open the port with the host link and check the firmware's handshake")
    check.add_argument("--port", required=True, help="the Arduino's serial port")
    check.add_argument("--board", choices=("mega", "uno", "nano"), help="also check the matrix size of this board")
    for p in (build, flash):
        p.add_argument("--board", choices=("mega", "uno", "nano"), default="mega", help=BOARD_HELP)
        p.add_argument("--out", type=Path, help=f"build directory (default {_default_out()})")
    for p in (flash, check):
        p.add_argument("--timeout", type=float, default=8.0, help="seconds to wait for the handshake (default 8)")
    udev = what.add_parser("udev-rule", help="print the udev rule that names the grid's Arduino /dev/orrery-grid")
    for p in (build, flash, check, udev):
        p.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from companion import firmware_tools as fw

    if args.firmware_command == "udev-rule":
        print(fw.udev_rules(), end="")
        return 0
    if args.firmware_command == "check":
        _report(fw.check_handshake(args.port, args.board, args.timeout), args.port)
        return 0
    if args.firmware_command == "flash":
        fw.flash_preflight(args.board, args.port)
    hex_file = fw.build_board(args.board, args.out or _default_out())
    print(f"built {hex_file}")
    if args.firmware_command == "flash":
        baud = fw.flash(args.board, args.port, hex_file)
        print(f"flashed {args.port} ({args.board}, {baud} baud)")
        _report(fw.check_handshake(args.port, args.board, args.timeout), args.port)
    return 0


def _report(hello, port: str) -> None:
    print(
        f"handshake on {port}: firmware {hello.firmware}, protocol {hello.protocol}, "
        f"{hello.rows} x {hello.cols} switches, debounce {hello.debounce_ms} ms"
    )
