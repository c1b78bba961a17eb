"""The board a game is played on: the one its options name (ORBIT's side, or a table's own board from its data
sets), else the table's board for that game."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from companion.boards import Board, BoardFileError, load_board

BOARD_OPTIONS = {"orbit": "board"}  # games whose options may name the board itself


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
