"""`companion demo`: the digital twin plays a whole game while the companion referees it and serves the phone page.

The twin plays in a background thread; the web server runs in the foreground and keeps serving after the game ends
(a phone may start another from the setup wizard) until Ctrl-C. `--terminal` keeps the old behaviour: no server,
the game printed, exit when it ends (the benchmarks and tests use it).
"""

from __future__ import annotations

import argparse
import threading
from typing import Any

# The demo shows the referee at work early in every game: once the game has this many actions, a player makes an
# illegal move at the first chance (held on the board a few paces, so the phones' warning can be read) and puts it
# right; later ones come at random, as people make them.
ILLEGAL_AFTER = 2


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("demo", help="watch scripted players play a whole game on a simulated board")
    parser.add_argument("--game", default="trajectory", help="which game (default trajectory)")
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
        "--no-camera", dest="camera", action="store_false", help="the grid alone (default: the rendered camera too, "
        "for games with a piece registry)"
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
    )
    session = twin.session
    print(
        f"{session.game.title}: {args.players} scripted players on a simulated board ({args.grid} grid, "
        f"{'the rendered camera' if twin.camera else 'no camera'}), seed {args.seed}. Log: {session.store.path}"
    )
    print_entry, print_warning = _printers(session)
    session.subscribe(print_entry)
    twin.loop.on_warning = print_warning
    if args.terminal:
        with twin:
            print(f"  {session.game.phase(session.state).prompt}")
            stats = twin.play()
        return _report(twin, stats)
    return _serve(twin, args)


def _printers(session: Any) -> tuple[Any, Any]:
    """What the terminal prints of a game: its announcements and the referee's warnings, pieces and sites named as
    the phones name them ("Red's ship", not ship-red)."""
    from companion.sim.table_setup import game_board
    from companion.web.words import Words

    words = Words(game_board(session.game.name, session.record.options), session.record.players)

    def print_entry(entry: Any) -> None:
        for event in entry.events:
            print(f"  {words.text(event['text'])}", flush=True)

    def print_warning(warning: Any) -> None:
        print(f"  ! {words.text(warning.text)}" if warning else "  ! The board matches the game again.", flush=True)

    return print_entry, print_warning


def _report(twin: Any, stats: Any) -> int:
    session = twin.session
    outcome = session.game.outcome(session.state)
    print(f"Result: {outcome.result} ({outcome.reason})" if outcome else "Result: unfinished")
    print(
        f"Board moves {stats.board_moves} ({stats.taps} settled on a phone), phone inputs {stats.phone_inputs}, "
        f"messy hands {stats.messy}, illegal moves caught {stats.illegal_caught} of {stats.illegal_tried}, "
        f"wrong moves accepted {stats.wrong_accepted}."
    )
    return 0 if stats.wrong_accepted == 0 else 1


def _serve(twin: Any, args: argparse.Namespace) -> int:
    from companion.sim.table_setup import game_board
    from companion.table.beside import site_namer
    from companion.table.loop import TableLoop
    from companion.table.token import token_file
    from companion.web.serve import serve
    from companion.web.table import Table

    games: list[tuple[Any, Any]] = []  # new games started on a phone, for the twin to take up
    wake = threading.Event()
    stop = threading.Event()

    def new_loop(session: Any) -> TableLoop:
        # The game's own board's names (another game's, or ORBIT's back side): the twin lays it on the grid when it
        # takes the game up.
        board = game_board(session.record.game, session.record.options)
        same = session.record.game == twin.session.record.game
        loop = TableLoop(session, twin.observer, site_namer(board, twin.beside if same else []))
        print_entry, loop.on_warning = _printers(session)
        session.subscribe(print_entry)
        return loop

    def on_new_game(session: Any, loop: Any) -> None:
        games.append((session, loop))
        wake.set()

    table = Table(
        twin.session,
        twin.loop,
        make_loop=new_loop,
        sensors=lambda: _sensors(twin, args.grid),
        camera=twin_camera(twin.session.record.game, args.seed, lambda: table.session, twin.session.record.options,
                           twin.session.record.players),
        grid=_twin_grid(twin),
        beside=_twin_beside_grids(twin),
        probe=_twin_probe(twin),
        token_path=token_file(twin.session.store.path),
    )
    table.on_new_game(on_new_game)
    twin.calibrating = lambda: _walked_site(table)
    twin.tap_placed = lambda: _tap_placed(table)
    failures: list[BaseException] = []

    def play() -> None:
        try:
            with twin:
                table.publish_sensors()
                while not stop.is_set():
                    while not stop.is_set() and not games and twin.step():
                        pass
                    if stop.is_set():
                        break
                    if not games:
                        _report(twin, twin.stats)
                        print("The game is over; start another from a phone (New game), or Ctrl-C to stop.",
                              flush=True)  # fmt: skip
                        while not wake.wait(0.05):
                            twin.move_calibration_magnet()  # the table may be calibrated meanwhile
                    wake.clear()
                    if games:  # a phone started a game: the players set it out (the latest, if several)
                        session, loop = games.pop()
                        _lay_board(twin, session, args.seed)
                        twin.switch(session, loop)
                        games.clear()
        except BaseException as error:  # shown when the server stops, not lost in a thread
            failures.append(error)

    player = threading.Thread(target=play, name="twin", daemon=True)
    player.start()
    try:
        serve(table, args.host, args.port, tls=_tls(args, twin))
    finally:
        stop.set()
        twin.stopping.set()
        wake.set()
        player.join(timeout=10)
    if failures:
        raise failures[0]
    return 0 if twin.stats.wrong_accepted == 0 else 1


def _tls(args: argparse.Namespace, twin: Any) -> Any:
    """--tls-dir: the CA and certificate there (in the work folder without a DIR), made when missing."""
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


def _lay_board(twin: Any, session: Any, seed: int) -> None:
    """The board of a game a phone started laid on the twin's grid (and under its camera, if the game has a piece
    registry), and the grid's walk-through pointed at it, as `companion serve` switches its senses to that board."""
    from companion.sensing.pieces import has_registry
    from companion.sim.table_setup import game_board, twin_camera

    game = session.record.game
    board = game_board(game, session.record.options)
    camera = twin_camera(game, board, seed) if twin.camera is not None and has_registry(game) else None
    twin.rewire(board, camera)
    if twin.table_grid is not None:
        twin.table_grid.board = board


def _twin_grid(twin: Any) -> Any:
    """The twin's grid as a calibration from the phones sees it: its link, its own profile file, its observer."""
    from companion.sim.table_setup import game_board
    from companion.table.grid_walk import TableGrid

    record = twin.session.record
    twin.table_grid = TableGrid(game_board(record.game, record.options), lambda: twin.link, twin.profile,
                                twin.observer, lambda profile: twin.senses.calibrated("grid", True),
                                settle=twin.observer.settle)  # fmt: skip
    return twin.table_grid


def _twin_beside_grids(twin: Any) -> list[Any]:
    """The grids under the boards beside the game's own (Orbital Battle's planet maps), for their calibration."""
    from companion.table.grid_walk import TableGrid

    return [TableGrid(on.board, lambda i=i: twin.beside_links[i] if i < len(twin.beside_links) else None, on.profile,
                      twin.observer, lambda profile: twin.senses.calibrated("grid", True), settle=twin.observer.settle,
                      place=i, prefix=on.prefix) for i, on in enumerate(twin.beside)]  # fmt: skip


def _twin_probe(twin: Any) -> Any:
    """The twin's grids for a probe from the phones: which lies under which board (None: one grid)."""
    from companion.table.probe_walk import TableProbe

    if not twin.beside:
        return None
    game = twin.session.record.game

    def links() -> dict[str, Any]:
        beside = zip(twin.beside, twin.beside_links, strict=False)
        return {game: twin.link, **{on.board.name: link for on, link in beside}}

    def bound(links: dict[str, Any]) -> None:
        twin.link, twin.beside_links = links[game], [links[on.board.name] for on in twin.beside]

    return TableProbe(links, {game: "", **{on.board.name: on.prefix for on in twin.beside}}, bound,
                      twin.observer.settle)  # fmt: skip


def _walked_site(table: Any) -> str | None:
    walk = table.walk
    return walk.status()["site"] if walk is not None and walk.running else None


def _tap_placed(table: Any) -> bool:
    """The scripted players tap Placed when the setup guide asks for a piece the sensors cannot see."""
    from companion.table.steps import NotNow

    guide = table.guide
    if guide is None or not guide.running or guide.status()["how"] != "tap":
        return False
    try:
        table.guide_command("placed")
    except NotNow:
        return False  # it ended meanwhile
    return True


def _sensors(twin: Any, grid: str) -> dict[str, Any]:
    links = twin.links()
    state = "not started" if not links else ("synced" if all(link.synced for link in links) else "lost")
    grid = grid if len(links) < 2 else f"{len(links)} {grid} grids"
    status = twin.senses.status()
    camera = "the twin's rendered camera" if status["camera"] == "up" else f"none ({status['camera']})"
    return {"grid": f"{grid} grid: {state}", "camera": camera, "mode": status["mode"]}


def twin_camera(game: str, seed: int, session: Any, options: Any = None, players: Any = ()) -> Any:
    """The calibration view's feed: the twin's rendered camera on the current layout, read by the real vision (a
    camera and a pipeline of its own, so the view never disturbs the twin's); over several boards, the view shows
    the game's own board's reading."""
    from companion.sensing.pieces import has_registry
    from companion.sim import table_setup
    from companion.web.calibration import CameraFeed

    if not has_registry(game):
        return None  # no piece registry for this game yet: the page says there is no camera
    camera = table_setup.twin_camera(game, table_setup.game_board(game, options), seed, players)

    def frame() -> Any:
        current = session()
        return camera.render(current.game.layout(current.state))[0]

    return CameraFeed(frame, getattr(camera.vision, "visions", (camera.vision,))[0])
