"""`companion calibrate WHAT`: procedures that measure a real table and write a profile to calibration/.

Each grid procedure lives in its own module with HELP, add_arguments(parser) and run(args) -> int, listed in
CALIBRATIONS; the camera's three (camera, board, colours) share option handling and register themselves.
"""

from __future__ import annotations

import argparse
import importlib

CALIBRATIONS = {
    "grid": "companion.calibration.grid",
}


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("calibrate", help="calibrate the table's sensors and save a profile")
    procedures = parser.add_subparsers(dest="calibration", required=True, metavar="WHAT")
    for name, module_name in CALIBRATIONS.items():
        module = importlib.import_module(module_name)
        procedure = procedures.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(procedure)
        procedure.set_defaults(run=module.run)
    from companion.cli.calibrate_camera import register_calibrate

    register_calibrate(procedures)
