"""The board a game is played on: the one its options name (ORBIT's side, or a table's own board from its data
sets), else the table's board for that game."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from companion.boards import Board, BoardFileError, load_board
from companion.errors import UserError
from companion.table.datasets import DataSets

# Games whose options may name the board itself (ORBIT's side, Dakalio's mat, Orbital Battle's solar map, a copy of
# Trajectory's board).
BOARD_OPTIONS = {"orbit": "board", "dakalio": "mat", "orbital_battle": "solar_map", "trajectory": "board"}


def board_of(game: str, options: Mapping[str, Any], table_board: Callable[[str], Board]) -> Board:
    option = BOARD_OPTIONS.get(game)
    spec = options.get(option) if option else None
    if not isinstance(spec, str) or not spec:
        return table_board(game)
    if game == "orbit" and spec in ("front", "back"):
        from companion.boards import orbit

        return orbit.build(spec) if spec == "back" else table_board(game)
    try:
        return load_board(spec)
    except (BoardFileError, OSError):  # the game could not have started on it: the table's own then
        return table_board(game)


def table_board(sets: DataSets, spec: str) -> str:
    """The path of the board `spec` names: a board file as given, else the table's board data set of that name (a
    board made in the editor or added with `companion data add`). UserError naming the boards there are otherwise."""
    if spec.endswith(".json") or Path(spec).exists():
        return spec
    mine = named_board(sets, spec)
    if mine is not None:
        return str(mine)
    raise UserError(f"--board: {spec!r} is neither a board file nor a board of this table ({board_names(sets)})")


def named_board(sets: DataSets, name: str) -> Path | None:
    """Where the table keeps its board data set called `name`, if it has one."""
    for game, option in BOARD_OPTIONS.items():
        if name in sets.names(game, option):
            return sets.root / game / option / name  # type: ignore[operator]
    return None


def board_names(sets: DataSets) -> str:
    """The table's boards by name, for a message: "its boards: my-copy (orbit)" or that it has none."""
    names = [f"{name} ({game})" for game, option in BOARD_OPTIONS.items() for name in sets.names(game, option)]
    return f"its boards: {', '.join(names)}" if names else "it has no boards of its own yet"
