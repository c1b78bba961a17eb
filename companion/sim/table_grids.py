"""The twin's grids for a table of several boards: Orbital Battle's solar map on the Mega's 16 x 16 and each planet
map on an Uno's 8 x 8, each grid wired in its board's site order and with its own profile, as a table built that
way is calibrated. Hands set the game's layout on them: a site's switch is closed while a piece stands on it."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from companion.boards import Board, default_board
from companion.calibration.grid import GridProfile, save_profile
from companion.errors import UserError
from companion.rules.engine import Layout
from companion.sim.simavr_grid import GridProcess, build, simavr_grid, virtual_grid
from companion.sim.twin import switch_map
from companion.table.beside import boards_beside, layout_prefix


def grid_size(sites: int) -> int:
    """The smaller of the two builds that has a switch for every site: the Uno/Nano's 8 x 8 or the Mega's 16 x 16."""
    if sites > 16 * 16:
        raise UserError(f"a board of {sites} sites needs more than the 16 x 16 grid")
    return 8 if sites <= 8 * 8 else 16


def grid_process(kind: str, work: Path, size: int = 8, firmware: Path | None = None) -> GridProcess:
    """ "virtual": the Python grid; "simavr": the real firmware (the Uno build for 8 x 8, the Mega's for 16 x 16),
    built in `firmware` (default: `work`; a build already there is only brought up to date)."""
    if kind == "virtual":
        return virtual_grid(size, size)
    if kind == "simavr":
        missing = [tool for tool in ("avr-gcc", "simavr", "make") if shutil.which(tool) is None]
        if missing:
            raise UserError(f"--grid simavr needs {', '.join(missing)} (Debian: gcc-avr simavr libsimavr-dev make)")
        return simavr_grid("uno" if size == 8 else "mega", build(firmware or work), realtime=True)
    raise UserError(f"--grid must be virtual or simavr, not {kind!r}")


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


def board_on_grid(work: Path, spec: str, prefix: str, kind: str = "virtual") -> BoardOnGrid:
    """A board (by name) on a grid of the size it needs, wired in site order, its profile written in `work`."""
    board = default_board(spec)
    size = grid_size(len(board.sites))
    sites = switch_map(board, size, size)
    profile = work / f"grid-{spec.replace(':', '-')}.json"
    save_profile(GridProfile(board.name, size, size, sites), profile)
    return BoardOnGrid(board, prefix, grid_process(kind, work, size), profile, sites)


def beside_grids(work: Path, game: str, kind: str = "virtual") -> list[BoardOnGrid]:
    """Every board the game places beside its own (Orbital Battle's eight planet maps), each on a grid of its own."""
    return [board_on_grid(work, spec, layout_prefix(game, spec), kind) for spec in boards_beside(game)]


class TableGrids:
    """Several boards, each on a grid process of its own (virtual, or the firmware in simavr)."""

    def __init__(self, work: Path, boards: list[tuple[str, str]], kind: str = "virtual") -> None:
        """`boards`: (board name, the layout's prefix for its sites), the game's own board first."""
        self.boards = [board_on_grid(work, spec, prefix, kind) for spec, prefix in boards]

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
