"""The twin's grids for a table of several boards: Orbital Battle's solar map on the Mega's 16 x 16 and each planet
map on an Uno's 8 x 8, each grid wired in its board's site order and with its own profile, as a table built that
way is calibrated. Hands set the game's layout on them: a site's switch is closed while a piece stands on it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from companion.boards import Board, default_board
from companion.calibration.grid import GridProfile, save_profile
from companion.rules.engine import Layout
from companion.sim.simavr_grid import GridProcess
from companion.sim.table_setup import grid_process, grid_size
from companion.sim.twin import switch_map


@dataclass
class BoardOnGrid:
    """One board on its grid: the layout names its sites with `prefix` ("" for the game's own board)."""

    board: Board
    prefix: str
    grid: GridProcess
    profile: Path
    sites: dict[str, tuple[int, int]]  # the board's own site id -> switch

    def closed(self, layout: Layout) -> set[tuple[int, int]]:
        return {switch for site, switch in self.sites.items() if layout.get(self.prefix + site)}


class TableGrids:
    """Several boards, each on a grid process of its own (virtual, or the firmware in simavr)."""

    def __init__(self, work: Path, boards: list[tuple[str, str]], kind: str = "virtual") -> None:
        """`boards`: (board name, the layout's prefix for its sites), the game's own board first."""
        self.boards: list[BoardOnGrid] = []
        for spec, prefix in boards:
            board = default_board(spec)
            size = grid_size(len(board.sites))
            sites = switch_map(board, size, size)
            profile = work / f"grid-{spec.replace(':', '-')}.json"
            save_profile(GridProfile(board.name, size, size, sites), profile)
            self.boards.append(BoardOnGrid(board, prefix, grid_process(kind, work, size), profile, sites))

    def __enter__(self) -> TableGrids:
        for on_grid in self.boards:
            on_grid.grid.start()
            on_grid.grid.go()
        return self

    def __exit__(self, *exc: object) -> None:
        for on_grid in self.boards:
            on_grid.grid.stop()

    def show(self, layout: Layout) -> None:
        """Every grid's switches as the layout's pieces close them."""
        for on_grid in self.boards:
            on_grid.grid.set_all(on_grid.closed(layout))
