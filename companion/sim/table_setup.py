"""The twin's table: `companion serve`'s own (LiveTable and the web's table) on virtual devices, for the demo, the
benchmarks and the tests.

What a host does once before serving, the twin does in its folder: it writes the config's files (the grid profile
of every board it may lay over its grid, wired in site order as `companion calibrate grid` records a grid built
that way; the camera profile a perfect calibration of its camera gives) and names its grids' ports. The table is
then built by the product's own code from that config and the twin's devices.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.boards import Board, default_board
from companion.calibration.grid import GridProfile, save_profile
from companion.errors import UserError
from companion.rules import load, names
from companion.sensing.pieces import default_registry, has_registry
from companion.sim.table_grids import beside_grids, grid_process, grid_size
from companion.sim.twin import Lay, Ports, Twin, switch_map
from companion.sim.twin_camera import TwinCamera
from companion.table.beside import Placed, boards_beside
from companion.table.config import BoardGrid, TableConfig
from companion.table.devices import Devices, open_camera, open_grid
from companion.table.game_board import board_of, grid_profile_of
from companion.table.live import LiveTable
from companion.table.session import Session
from companion.web.serve import web_table

if TYPE_CHECKING:
    from companion.sensing.camera import FrameSource
    from companion.sim.twin_frames import CameraModel, RenderedFrames
    from companion.sim.twin_spread import SpreadCamera

COLOURS = ("red", "green", "blue", "yellow", "orange", "purple")
TOKEN = "twin-table-token"  # the twin's table token (its phones hold it; the demo keeps one of its own)


def make_twin(
    game: str,
    players: int,
    seed: int,
    grid: str,
    db: str | None,
    mess: float,
    illegal: float,
    pace: float = 0.0,
    wire: bool = False,
    camera: bool | None = False,
    options: Mapping[str, Any] | None = None,
    illegal_after: int | None = None,
    beside: bool = True,
    settle: float = 0.12,
    token: str | None = TOKEN,
    firmware: Path | None = None,
    own_clock: bool = False,
    phone: bool = False,
) -> Twin:
    """The twin around the unfinished game in `db` if it holds one (as `companion serve` resumes it), else a new game;
    `camera`: the rendered camera watches the table too (None: if the game has a piece registry); `beside`: the
    boards the game places beside its own lie on grids of their own (Orbital Battle's planet maps), else the camera
    alone reads them, or without a camera their moves are declared on the phones; `token`: the table's token (None:
    the one kept beside the log, as `companion serve` keeps it); `firmware`: where the firmware for a "simavr" grid
    is built (default: the twin's own folder); `own_clock`: the table's threads stay still and a driver on a clock of
    its own looks at the board (`bench messy`'s hands in time, hand_clock.py); `phone`: the camera is a phone on a
    stand (the camera page's frames, which the caller sends, drawn by the twin's camera model)."""
    if game not in names():
        raise UserError(f"unknown game {game!r} (known: {', '.join(names())})")
    engine = load(game)
    if not engine.min_players <= players <= min(engine.max_players, len(COLOURS)):
        raise UserError(f"{engine.title} takes {engine.min_players} to {engine.max_players} players, not {players}")
    work = Path(tempfile.mkdtemp(prefix="orrery-twin-"))
    db = db or str(work / "companion.db")
    seated = COLOURS[:players]
    record = _first_game(db, game, seated, options or {}, seed)
    game, board = record[0], board_of(record[0], record[1], default_board)
    size = grid_size(len(board.sites))
    base = work / "grid.json"
    _calibrated(base, game, size)
    on_grids = beside_grids(work, game, grid) if beside else []
    watching = _camera(camera, game)
    config = TableConfig(
        game=game, players=seated, seed=seed, options=dict(options or {}), db=db, serial=str(work / "ttyGRID"),
        grid_profile=str(base), settle=settle,
        boards=(*(BoardGrid(on.board.name, str(work / f"ttyGRID{i}"), str(on.profile))
                  for i, on in enumerate(on_grids)),
                *(() if beside or not watching else (BoardGrid(spec, "none") for spec in boards_beside(game)))),
        camera=("phone" if phone else "twin") if watching else "none",
        camera_profile=str(work / "camera.json") if watching else None,
    )  # fmt: skip
    model = twin_camera(game, board, seed, record[2], on_grids) if watching else None
    frames = None
    if model is not None:
        _camera_profile(model, work / "camera.json")
    if model is not None and not phone:
        from companion.sim.twin_frames import RenderedFrames

        frames = RenderedFrames(model, _frame_size(model))
    live = LiveTable(config, _devices(frames))
    web = web_table(live, token)
    ports = Ports(grid_process(grid, work, size, firmware), Path(config.serial), on_grids,
                  [Path(b.serial) for b in config.boards if b.has_grid], wire)  # fmt: skip
    return Twin(live, web, ports, switch_map(board, size, size), seed=seed, mess=mess, illegal=illegal, pace=pace,
                frames=frames, camera=model, lay=_layer(model, seed, size, on_grids),
                illegal_after=illegal_after, own_clock=own_clock)  # fmt: skip


def _first_game(db: str, game: str, players: Sequence[str], options: Mapping[str, Any],
                seed: int) -> tuple[str, Mapping[str, Any], tuple[str, ...]]:  # fmt: skip
    """The game the table takes up: the unfinished one in `db` (the table resumes it), else the new one it starts."""
    from companion.table.store import Store

    store = Store(db)
    try:
        unfinished = store.unfinished()
        if unfinished:
            record = unfinished[-1]
            return record.game, record.options, tuple(record.players)
    finally:
        store.close()
    Session.start(Store(db), game, list(players), dict(options), seed).store.close()  # (bad options: said now)
    return game, options, tuple(players)


def _calibrated(base: Path, game: str, size: int) -> None:
    """The grid profile of every board the twin may lay over its grid (each game's own and the other sides a game
    brings, ORBIT's back, where the grid has switches enough), where the table keeps each: the table's own game's own
    board in `base`."""
    boards = [(name, side) for name in names() for side in (None, *list(load(name).board_sides)[1:])]
    for name, side in boards:
        option = load(name).board_option
        board = board_of(name, {} if side is None or option is None else {option: side}, default_board)
        if len(board.sites) <= size * size:
            own = name == game and side is None
            save_profile(
                GridProfile(board.name, size, size, switch_map(board, size, size)),
                grid_profile_of(base, name, side, own),
            )


def _devices(frames: RenderedFrames | None) -> Devices:
    """The twin's devices: its grids are opened as any port is (their ports point at the grid processes' ptys), its
    camera is the rendered one."""
    if frames is None:
        return Devices(open_grid, open_camera)

    def camera(source: str, wanted: Any) -> FrameSource:
        frames.wanted = wanted
        return frames

    return Devices(open_grid, camera)


def _camera_profile(model: CameraModel, path: Path) -> None:
    """The camera profile a perfect calibration of the twin's camera gives (`companion calibrate camera` and
    `board`): over one board its intrinsics and pose, over several its intrinsics (each board is found by its own
    markers)."""
    from companion.sensing.vision_profile import save_profile as save_camera
    from companion.sim.render_camera import sim_profile

    if isinstance(model, TwinCamera):
        save_camera(sim_profile(model.camera, model.board.name), path)
    else:
        from companion.sim.twin_spread import mounting_profile

        save_camera(mounting_profile(model.cam), path)


def _frame_size(model: CameraModel) -> tuple[int, int]:
    if isinstance(model, TwinCamera):
        return model.camera.width, model.camera.height
    return model.cam.width, model.cam.height


def _layer(model: CameraModel | None, seed: int, size: int, on_grids: Sequence[Placed]) -> Lay:
    """How the twin lays a new game's board: over its grid, wired in site order (none of its switches when the board
    has more sites than the grid), and under the same camera, if the game has pieces the camera knows."""

    def lay(session: Session) -> tuple[dict[str, tuple[int, int]], CameraModel | None]:
        record = session.record
        board = board_of(record.game, record.options, default_board)
        wiring = switch_map(board, size, size) if len(board.sites) <= size * size else {}
        camera: CameraModel | None = None
        if isinstance(model, TwinCamera) and has_registry(record.game) and not boards_beside(record.game):
            camera = TwinCamera(board, default_registry(record.game), seed, physical=session.game.physical_piece,
                                camera=model.camera, players=record.players)  # fmt: skip
        elif model is not None and not isinstance(model, TwinCamera) and boards_beside(record.game):
            camera = twin_camera(record.game, board, seed, record.players, on_grids, _frame_size(model))
        return wiring, camera

    return lay


def game_board(game: str, options: Mapping[str, Any] | None = None) -> Board:
    """The board a game's options put on the table (a side the game brings, or a board file), else its own: as the
    live table chooses it."""
    return board_of(game, options or {}, default_board)


def twin_camera(
    game: str,
    board: Board,
    seed: int,
    players: Sequence[str] = (),
    beside: Sequence[Placed] = (),
    size: tuple[int, int] | None = None,
) -> TwinCamera | SpreadCamera:
    """The rendered camera over a game's board, with the game's piece registry; over a game that places boards beside
    its own (Orbital Battle's planet maps), the camera over all of them, read by TableVision (the boards beside it
    whether or not they lie on grids: `beside`, else every one the game places); `size`: its frames'."""
    if not boards_beside(game):
        return TwinCamera(
            board, default_registry(game), seed, size, physical=load(game).physical_piece, players=players
        )
    from companion.sim.twin_spread import PLACES, SpreadCamera, boards_in_view, spread_size

    registry = default_registry(game)
    laid = list(beside) or boards_in_view(game)
    return SpreadCamera(
        board,
        laid,
        registry,
        players,
        seed,
        PLACES,
        size or spread_size(board, laid, PLACES, registry.sticker_sizes()[0]),
    )


def _camera(wanted: bool | None, game: str) -> bool:
    return has_registry(game) if wanted is None else wanted
