"""`companion demo`: the digital twin plays a whole game while the companion referees it and serves the phone page.

The table is `companion serve`'s own, on the twin's virtual devices (sim/table_setup.py), and the page is serve's
web table served as serve serves it. The twin plays in a background thread; the web server runs in the foreground
and keeps serving after the game ends (a phone may start another from the setup wizard) until Ctrl-C. `--terminal`:
no server, the game printed, exit when it ends.
"""

from __future__ import annotations

import argparse
import threading
from typing import TYPE_CHECKING

from companion.rules import DEFAULT

if TYPE_CHECKING:
    from companion.sim.twin import Twin, TwinStats
    from companion.table.loop import Warning
    from companion.table.store import Entry
    from companion.web.serve import Tls

# The demo shows the referee at work early in every game: once the game has this many actions, a player makes an
# illegal move at the first chance (held on the board a few paces, so the phones' warning can be read) and puts it
# right; later ones come at random, as people make them.
ILLEGAL_AFTER = 2


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("demo", help="watch scripted players play a whole game on a simulated board")
    parser.add_argument("--game", default=DEFAULT, help=f"which game (default {DEFAULT})")
    parser.add_argument("--players", type=int, help="how many players (default 3, or the nearest count the game takes)")
    parser.add_argument("--seed", type=int, default=1, help="the game's seed (default 1)")
    parser.add_argument(
        "--speed",
        type=float,
        default=0.5,
        help="actions a second at most (default 0.5: one every two seconds, a pace people can follow and read the "
        "phones at; 0 plays as fast as the board settles)",
    )
    parser.add_argument(
        "--grid", default="virtual", help="virtual (default) or simavr: the real firmware in the simulator"
    )
    parser.add_argument("--db", help="SQLite file for the game's log (default: a temporary one)")
    parser.add_argument("--host", default="0.0.0.0", help="address to serve the phone page on (default 0.0.0.0)")
    parser.add_argument("--port", type=int, default=8080, help="port of the phone page (default 8080)")
    parser.add_argument(
        "--tls-dir", nargs="?", const="", metavar="DIR",
        help="serve https too, with the table's CA in DIR, made there if missing (no DIR: in the demo's work folder)",
    )  # fmt: skip
    parser.add_argument("--tls-port", type=int, default=8443, help="the https port (default 8443)")
    parser.add_argument("--terminal", action="store_true", help="no phone page: print the game and exit at its end")
    parser.add_argument(
        "--no-camera",
        dest="camera",
        action="store_false",
        help="the grid alone (default: the rendered camera too, for games with a piece registry)",
    )
    parser.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE",
        help="a game option, e.g. --option mode=supremacy (VALUE is read as JSON when it can be)",
    )  # fmt: skip
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from companion.cli.options import game_options
    from companion.errors import UserError
    from companion.sim.table_setup import make_twin

    if args.players is None:  # three where the game takes three, else the nearest count it takes (Dakalio: two)
        from companion.rules import load, names

        engine = load(args.game) if args.game in names() else None
        args.players = 3 if engine is None else min(max(3, engine.min_players), engine.max_players)
    if args.speed < 0:
        raise UserError("demo: --speed must be 0 or more")
    if not 0 <= args.port <= 65535:
        raise UserError(f"demo: --port must be 0 to 65535, not {args.port}")
    twin = make_twin(
        args.game,
        args.players,
        args.seed,
        args.grid,
        args.db,
        mess=0.2,
        illegal=0.05,
        pace=1 / args.speed if args.speed else 0.0,
        camera=None if args.camera else False,
        options=game_options(args.option, "demo"),
        illegal_after=ILLEGAL_AFTER,
        token=None,  # the table's own, kept beside the log as `companion serve` keeps it
    )
    session = twin.session
    print(
        f"{session.game.title}: {args.players} scripted players on a simulated board ({args.grid} grid, "
        f"{'the rendered camera' if twin.camera else 'no camera'}), seed {args.seed}. Log: {session.store.path}"
    )
    _print_games(twin)
    if args.terminal:
        with twin:
            print(f"  {session.game.phase(session.state).prompt}")
            stats = twin.play()
        return _report(twin, stats)
    return _serve(twin, args, _tls(args, twin))


def _print_games(twin: Twin) -> None:
    """The terminal prints each game's announcements and the referee's warnings, pieces and sites named as the
    phones name them ("Red's ship", not ship-red): the game in play now, and each a phone starts."""
    from companion.web.table import NewGame

    def follow(new: NewGame) -> None:
        words = twin.web.words()

        def entry(told: Entry) -> None:
            for event in told.events:
                print(f"  {words.text(event['text'])}", flush=True)

        def warning(told: Warning | None) -> None:
            print(f"  ! {words.text(told.text)}" if told else "  ! The board matches the game again.", flush=True)

        new.session.entries.subscribe(entry)
        if new.loop is not None:
            new.loop.warnings.subscribe(warning)

    follow(NewGame(twin.web.session, twin.web.loop))
    twin.web.games.subscribe(follow)


def _report(twin: Twin, stats: TwinStats) -> int:
    session = twin.session
    outcome = session.game.outcome(session.state)
    print(f"Result: {outcome.result} ({outcome.reason})" if outcome else "Result: unfinished")
    print(
        f"Board moves {stats.board_moves} ({stats.taps} settled on a phone), phone inputs {stats.phone_inputs}, "
        f"messy hands {stats.messy}, illegal moves caught {stats.illegal_caught} of {stats.illegal_tried}, "
        f"wrong moves accepted {stats.wrong_accepted}."
    )
    return 0 if stats.wrong_accepted == 0 else 1


def _serve(twin: Twin, args: argparse.Namespace, tls: Tls | None) -> int:
    """`companion serve`'s web table, served as serve serves it, while the players play in a thread; a game a phone
    starts is laid out and played in its turn."""
    from companion.web.serve import serve

    stop = threading.Event()
    failures: list[BaseException] = []

    def play() -> None:
        try:
            with twin:
                twin.web.publish_sensors()
                over = False
                while not stop.is_set():
                    if twin.step():
                        over = False
                        continue
                    if not over:
                        _report(twin, twin.stats)
                        print("The game is over; start another from a phone (New game), or Ctrl-C to stop.",
                              flush=True)  # fmt: skip
                        over = True
                    twin.move_calibration_magnet()  # the table may be calibrated meanwhile
                    stop.wait(0.05)
        except BaseException as error:  # shown when the server stops, not lost in a thread
            failures.append(error)

    player = threading.Thread(target=play, name="twin", daemon=True)
    player.start()
    try:
        serve(twin.web, args.host, args.port, tls=tls)
    finally:
        stop.set()
        twin.stopping.set()
        player.join(timeout=10)
    if failures:
        raise failures[0]
    return 0 if twin.stats.wrong_accepted == 0 else 1


def _tls(args: argparse.Namespace, twin: Twin) -> Tls | None:
    """--tls-dir: the CA and certificate there (in the demo's work folder without a DIR), made when missing."""
    from pathlib import Path

    from companion.web.hostnames import host_name, local_names
    from companion.web.serve import tls_settings
    from companion.web.tableca import Folder, init

    if args.tls_dir is None:
        return None
    folder = Folder(Path(args.tls_dir) if args.tls_dir else Path(twin.session.store.path).parent / "tls")
    for line in init(folder, local_names(), host_name()):
        print(f"https: {line}", flush=True)
    return tls_settings(str(folder.path), args.tls_port, args.port)
