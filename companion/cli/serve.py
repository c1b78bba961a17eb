"""`companion serve`: referee a real table with whatever is attached (the reed grid, the camera, or only phones)."""

from __future__ import annotations

import argparse
import pathlib
from typing import Any

from companion.rules import DEFAULT


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("serve", help="referee a real table: the reed grid, the camera and the phones")
    parser.add_argument("--config", help="a TOML settings file (see docs/user-guide.md); options below override it")
    parser.add_argument("--game", help=f"the game to start when no unfinished game is waiting (default {DEFAULT})")
    parser.add_argument("--players", help="comma-separated seats for a new game (default red,green,blue)")
    parser.add_argument(
        "--seed",
        type=int,
        help="the new game's seed, for tests only (a table draws its chance from the system's entropy)",
    )
    parser.add_argument("--db", help="the SQLite game log (default companion.db); an unfinished game resumes")
    parser.add_argument(
        "--board",
        help="a board file, or the name of a board of the table's (made in the board "
        "editor; `companion data list`) (default: the game's own board)",
    )
    parser.add_argument("--serial", help='the reed grid: a port, "auto" (by USB id, the default) or "none"')
    parser.add_argument("--grid-profile", help="the grid's switch-to-site profile from `companion calibrate grid`")
    parser.add_argument(
        "--camera",
        help='a device number, "picamera", "phone" (a phone on a stand opens the '
        'camera page, /camera), an image folder, or "none" (the default)',
    )
    parser.add_argument("--camera-profile", help="the camera profile from `companion calibrate camera` and `board`")
    parser.add_argument("--registry", help="a piece registry file (default: the game's own)")
    parser.add_argument("--host", help="the address to serve the phones on (default 0.0.0.0)")
    parser.add_argument("--port", type=int, help="the port to serve the phones on (default 8080)")
    parser.add_argument(
        "--tls-dir",
        help='serve https too, with the table\'s CA from `companion tls init --dir DIR` (default "none": http only)',
    )
    parser.add_argument("--tls-port", type=int, help="the https port (default 8443)")
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    import signal
    import threading

    from companion.table.config import TableConfig, load_config
    from companion.table.datasets import DataSets, data_folder
    from companion.table.game_board import table_board
    from companion.table.live import LiveTable
    from companion.web.serve import serve, tls_settings, web_table

    config = load_config(args.config) if args.config else TableConfig()
    config = config.with_overrides(
        game=args.game, players=tuple(args.players.split(",")) if args.players else None, seed=args.seed,
        db=args.db, board=args.board, serial=args.serial, grid_profile=args.grid_profile, camera=args.camera,
        camera_profile=args.camera_profile, registry=args.registry, host=args.host, port=args.port,
        tls_dir=args.tls_dir, tls_port=args.tls_port,
    )  # fmt: skip
    if config.board:
        config = config.with_overrides(board=table_board(DataSets(data_folder(config.db)), config.board))
    tls = tls_settings(config.tls_dir, config.tls_port, config.port)
    table = LiveTable(config)
    table.config_path = pathlib.Path(args.config) if args.config else None  # where a probe from the phones saves
    table.session.entries.subscribe(_print_entry)
    print(table.describe(), flush=True)
    for note in table.notes:
        print(f"  Note: {note}.", flush=True)
    print(f"  {table.session.game.phase(table.session.state).prompt}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    table.start()
    print(f"Refereeing with: {table.senses.mode()}. The game is kept in {config.db}.", flush=True)
    web = web_table(table)
    web.games.subscribe(lambda new: new.session.entries.subscribe(_print_entry))
    try:
        serve(web, config.host, config.port, until=stop, tls=tls)
    finally:
        table.stop()
    return 0


def _print_entry(entry: Any) -> None:
    for event in entry.events:
        print(f"  {event['text']}", flush=True)
