"""Boards beside the game's own board on one table, each on a reed grid of its own: Orbital Battle's planet maps.

A game's layout names every site of the table: the solar map's hexes as they are, a planet map's hexes with the
planet's prefix (`p3:0402`). Each planet map lies on its own grid (an Uno's 8 x 8 holds its 63 hexes), calibrated
to its own profile; its switches are keyed by the grid's place in the table's list as well as by row and column, so
that the observer fuses every grid's switches into one board and the referee judges planet hexes like solar sites.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from pathlib import Path

from companion.boards import Board, default_board
from companion.calibration.grid import load_profile
from companion.errors import UserError
from companion.rules.orbital_battle.state import PLANETS, planet_site
from companion.table.config import BoardGrid

PLANET_MAP = "orbital_battle:planet"


def layout_prefix(game: str, board: str) -> str:
    """How `game`'s layout names the sites of `board` when it lies beside the game's own board."""
    planet = board.removeprefix(PLANET_MAP)
    if game == "orbital_battle" and board.startswith(PLANET_MAP) and planet in PLANETS:
        return planet_site(planet, "")
    raise UserError(f"boards: {board!r} is not a board {game}'s layout places beside its own "
                    f"(Orbital Battle's planet maps are {PLANET_MAP}1 to {PLANET_MAP}8)")


@dataclass(frozen=True)
class Beside:
    """One board beside the game's own: its grid's place in the table's list, its prefix and its switches."""

    index: int
    grid: BoardGrid
    board: Board
    prefix: str
    switch_sites: dict[Hashable, str]  # (index, row, col) -> the layout's site id; empty until calibrated

    def owns(self, site: str) -> bool:
        return site.startswith(self.prefix) and self.board.has_site(site.removeprefix(self.prefix))

    def name(self, site: str) -> str:
        return self.board.site(site.removeprefix(self.prefix)).name


def beside_boards(game: str, grids: Iterable[BoardGrid], notes: list[str], serial: str = "none") -> list[Beside]:
    """The boards beside `game`'s own, each with its grid's switch map (a board whose profile is not written yet is
    left out, and the note says why; a profile that is wrong is a one-line error). `serial`: the game board's own
    grid's port, which no other board's grid may share."""
    out = []
    for index, grid in enumerate(grids):
        if grid.serial == serial:
            raise UserError(f"boards[{index}].serial: {serial} is the port of the game board's own grid ([grid])")
        try:
            board = default_board(grid.board)
        except (KeyError, ValueError):
            raise UserError(f"boards[{index}].board: no board {grid.board!r}") from None
        prefix = layout_prefix(game, grid.board)
        switches: dict[Hashable, str] = {}
        if Path(grid.profile).exists():
            profile = load_profile(Path(grid.profile), board)
            switches = {(index, *switch): prefix + site for site, switch in profile.sites.items()}
        else:
            notes.append(f"the grid under {board.name} is left out: {grid.profile} does not exist yet (make it with "
                         f"`companion calibrate grid --game {grid.board} --port {grid.serial}`)")
        out.append(Beside(index, grid, board, prefix, switches))
    return out


def site_namer(board: Board, beside: Iterable[Beside]):
    """Words for any site of the table: the game's board's own, or a board beside it (\"planet 3 hex 0402\")."""
    boards = list(beside)

    def name(site: str) -> str:
        for other in boards:
            if other.owns(site):
                return other.name(site)
        return board.site(site).name

    return name
