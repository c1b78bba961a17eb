"""`companion calibrate WHAT`: procedures that measure a real table and write a profile to calibration/.

Each grid procedure lives in its own module with HELP, add_arguments(parser) and run(args) -> int, listed in
CALIBRATIONS; the camera's three (camera, board, colours) share option handling and register themselves.
"""

from __future__ import annotations

import argparse

from companion.cli.modules import add_module_commands

CALIBRATIONS = {
    "grid": "companion.calibration.grid",
    "grids": "companion.calibration.grid_probe",
}


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("calibrate", help="calibrate the table's sensors and save a profile")
    procedures = parser.add_subparsers(dest="calibration", required=True, metavar="WHAT")
    add_module_commands(procedures, CALIBRATIONS)
    from companion.cli.calibrate_camera import register_calibrate

    register_calibrate(procedures)
