"""`companion grid`: the reed grid's serial ports, as the companion finds them."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("grid", help="the reed grid's USB serial ports")
    what = parser.add_subparsers(dest="grid_command", required=True, metavar="WHAT")
    ports = what.add_parser(
        "ports",
        help="list the serial ports, their USB ids, and which answered like a reed grid (opening a port resets "
        "the board behind it)",
    )
    ports.add_argument("--all", action="store_true", help="also probe ports whose USB id is not a known board's")
    ports.add_argument("--wait", type=float, default=None, help="seconds to listen on each port (default 3)")
    ports.set_defaults(run=_ports)


def _ports(args: argparse.Namespace) -> int:
    from companion.errors import UserError
    from companion.sensing.reed import BOOT_WAIT, survey

    wait = BOOT_WAIT if args.wait is None else args.wait
    if not 0.5 <= wait <= 30:
        raise UserError(f"grid ports: --wait {wait:g} is outside 0.5..30 s")
    reports = survey(probe_all=args.all, wait=wait)
    if not reports:
        print("no serial ports (is the Arduino plugged in? dmesg shows what the USB port saw)")
        return 1
    for report in reports:
        print(f"{report.device}  {report.usb_id or 'no USB id'}  {report.name}")
        print(f"    {report.verdict}")
    grids = [r for r in reports if r.hello is not None]
    print(f"{len(grids)} reed grid{'s' if len(grids) != 1 else ''} found")
    return 0 if grids else 1
