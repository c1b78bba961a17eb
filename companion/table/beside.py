"""Boards beside the game's own board on one table, each on a reed grid of its own (Orbital Battle's planet maps),
as each game declares them (`Game.beside`).

A game's layout names every site of the table: the solar map's hexes as they are, a planet map's hexes with the
planet's prefix (`p3:0402`). Each planet map lies on its own grid (an Uno's 8 x 8 holds its 63 hexes), calibrated
to its own profile; its switches are keyed by the grid's place in the table's list as well as by row and column, so
that the observer fuses every grid's switches into one board and the referee judges planet hexes like solar sites.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from companion.boards import Board, default_board
from companion.calibration.grid import load_profile
from companion.errors import UserError
from companion.rules import load, names
from companion.table.config import BoardGrid


def boards_beside(game: str) -> tuple[str, ...]:
    """The boards `game` places beside its own, each on a grid of its own (as the game declares them)."""
    return tuple(other.board for other in load(game).beside) if game in names() else ()


def layout_prefix(game: str, board: str) -> str:
    """How `game`'s layout names the sites of `board` when it lies beside the game's own board."""
    declared = load(game).beside if game in names() else ()
    for other in declared:
        if other.board == board:
            return other.prefix
    boards = ", ".join(other.board for other in declared) or "none"
    raise UserError(f"boards: {board!r} is not a board {game}'s layout places beside its own (those are: {boards})")


@dataclass(frozen=True)
class Beside:
    """One board beside the game's own: its grid's place in the table's list, its prefix and its switches."""

    index: int
    grid: BoardGrid
    board: Board
    prefix: str
    switch_sites: dict[Hashable, str]  # (index, row, col) -> the layout's site id; empty until calibrated


def beside_boards(game: str, grids: Iterable[BoardGrid], notes: list[str], serial: str = "none") -> list[Beside]:
    """The boards beside `game`'s own, each with its grid's switch map (a board whose profile is not written yet is
    left out, and the note says why; a profile that is wrong is a one-line error; a board with no grid, `serial`
    "none", has none: the camera reads it). `serial`: the game board's own grid's port, which no other board's grid
    may share."""
    out = []
    for index, grid in enumerate(grids):
        if grid.has_grid and grid.serial == serial:
            raise UserError(f"boards[{index}].serial: {serial} is the port of the game board's own grid ([grid])")
        try:
            board = default_board(grid.board)
        except (KeyError, ValueError):
            raise UserError(f"boards[{index}].board: no board {grid.board!r}") from None
        prefix = layout_prefix(game, grid.board)
        switches: dict[Hashable, str] = {}
        if not grid.has_grid:
            pass  # the camera alone reads it
        elif Path(grid.profile).exists():
            profile = load_profile(Path(grid.profile), board)
            switches = {(index, *switch): prefix + site for site, switch in profile.sites.items()}
        else:
            notes.append(
                f"the grid under {board.name} is left out: {grid.profile} does not exist yet (make it with "
                "the page's Calibrate view or `companion calibrate grid --game "
                f"{grid.board} --port {grid.serial} --out {grid.profile}`)"
            )
        out.append(Beside(index, grid, board, prefix, switches))
    return out


class Placed(Protocol):
    """A board beside the game's own as the layout names its sites (a table's `Beside`, the twin's grids)."""

    board: Board
    prefix: str


def site_namer(board: Board, beside: Iterable[Placed]) -> Callable[[str], str]:
    """Words for any site of the table: the game's board's own, or a board beside it (\"planet 3 hex 0402\")."""
    boards = list(beside)

    def name(site: str) -> str:
        for other in boards:
            own = site.removeprefix(other.prefix)
            if site.startswith(other.prefix) and other.board.has_site(own):
                return other.board.site(own).name
        return board.site(site).name

    return name
