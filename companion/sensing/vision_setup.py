"""What the camera commands share: finding the board, the piece registry and the profile named on a command line."""

from __future__ import annotations

from pathlib import Path

from companion.boards import BoardFileError, default_board, load_board
from companion.boards.model import Board
from companion.errors import UserError
from companion.sensing.pieces import Registry, default_registry, load_registry


def resolve_board(spec: str) -> Board:
    """A game's default board ("trajectory") or a board file."""
    if spec.endswith(".json") or Path(spec).is_file():
        try:
            return load_board(spec)
        except (BoardFileError, OSError) as error:
            raise UserError(f"{spec}: {error}") from None
    try:
        return default_board(spec)
    except (KeyError, ValueError):  # no such game, or no such board of it ("orbit:side")
        raise UserError(
            f"--board: no board called {spec!r} (give a game with a default board, or a board file)"
        ) from None


def resolve_registry(spec: str | None, board: Board) -> Registry:
    """The registry file given, else the default registry of the board's game."""
    if spec:
        return load_registry(spec)
    return default_registry(board.name)
