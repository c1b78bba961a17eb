"""Building a simulated table for the demo and the benchmarks: a session, a grid process and the twin around them."""

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
from companion.sim.twin import Twin, switch_map
from companion.sim.twin_camera import TwinCamera
from companion.table.beside import Placed, boards_beside, site_namer
from companion.table.game_board import board_of
from companion.table.session import Session
from companion.table.store import Store

if TYPE_CHECKING:
    from companion.sim.twin_spread import SpreadCamera

COLOURS = ("red", "green", "blue", "yellow", "orange", "purple")


def make_twin(
    game: str,
    players: int,
    seed: int,
    grid: str,
    db: str | None,
    mess: float,
    illegal: float,
    pace: float = 0.0,
    resume: bool = False,
    wire: bool = False,
    camera: bool | None = False,
    options: Mapping[str, Any] | None = None,
    illegal_after: int | None = None,
    beside: bool = True,
) -> Twin:
    """A twin around a new game, or (with `resume`) around the unfinished game in `db` if it holds one; with
    `camera`, the rendered camera watches the table too (None: if the game has a piece registry); with `beside`, the
    boards the game places beside its own lie on grids of their own (Orbital Battle's planet maps), else their
    moves are declared on the phones."""
    if game not in names():
        raise UserError(f"unknown game {game!r} (known: {', '.join(names())})")
    engine = load(game)
    if not engine.min_players <= players <= min(engine.max_players, len(COLOURS)):
        raise UserError(f"{engine.title} takes {engine.min_players} to {engine.max_players} players, not {players}")
    work = Path(tempfile.mkdtemp(prefix="orrery-twin-"))
    store = Store(db or work / "companion.db")
    session = Session.resume(store) if resume else None
    if session is None:
        session = Session.start(store, game, list(COLOURS[:players]), dict(options or {}), seed)
    game = session.record.game
    board = game_board(game, session.record.options)
    size = grid_size(len(board.sites))
    sites = switch_map(board, size, size)
    profile = work / "grid.json"  # the twin's own grid profile: a calibration from the phones rewrites it
    save_profile(GridProfile(board.name, size, size, sites), profile)
    beside_boards = beside_grids(work, game, grid) if beside else []
    return Twin(
        session,
        grid_process(grid, work, size),
        sites,
        seed=seed,
        mess=mess,
        illegal=illegal,
        site_name=site_namer(board, beside_boards),
        pace=pace,
        wire=work / "ttyGRID" if wire else None,
        camera=twin_camera(game, board, seed, session.record.players, beside_boards) if _camera(camera, game) else None,
        profile=profile,
        illegal_after=illegal_after,
        beside=beside_boards,
    )


def game_board(game: str, options: Mapping[str, Any] | None = None) -> Board:
    """The board a game's options put on the table (a side the game brings, or a board file), else its own: as the
    live table chooses it."""
    return board_of(game, options or {}, default_board)


def twin_camera(game: str, board: Board, seed: int, players: Sequence[str] = (),
                beside: Sequence[Placed] = ()) -> TwinCamera | SpreadCamera:
    """The rendered camera over a game's board, with the game's piece registry; over a game that places boards beside
    its own (Orbital Battle's planet maps), the camera over all of them, read by TableVision (the boards beside it
    whether or not they lie on grids: `beside`, else every one the game places)."""
    if not boards_beside(game):
        return TwinCamera(board, default_registry(game), seed, physical=load(game).physical_piece)
    from companion.sim.twin_spread import PLACES, SpreadCamera, boards_in_view, spread_size

    registry = default_registry(game)
    laid = list(beside) or boards_in_view(game)
    return SpreadCamera(board, laid, registry, players, seed, PLACES,
                        spread_size(board, laid, PLACES, registry.sticker_sizes()[0]))


def _camera(wanted: bool | None, game: str) -> bool:
    return has_registry(game) if wanted is None else wanted
