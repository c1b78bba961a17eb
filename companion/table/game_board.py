"""The board a game is played on: the one its options name (ORBIT's side, or a table's own board from its data
sets), else the table's board for that game."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from companion.boards import Board, BoardFileError, load_board
from companion.errors import UserError
from companion.rules import Game, load, names
from companion.table.datasets import DataSets


class _BoardOptions(Mapping[str, str]):
    """Game -> the option that names its board, as each game declares it (read when first asked)."""

    def _read(self) -> dict[str, str]:
        return {game: option for game in names() if (option := load(game).board_option)}

    def __getitem__(self, game: str) -> str:
        return self._read()[game]

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())


# Games whose options may name the board itself (ORBIT's side, Dakalio's mat, a copy of Trajectory's board).
BOARD_OPTIONS: Mapping[str, str] = _BoardOptions()


def _chosen(engine: Game, options: Mapping[str, Any]) -> str | None:
    """What the options name for the game's board: a side the game brings other than its own, or a board file;
    None for its own board."""
    spec = options.get(engine.board_option) if engine.board_option else None
    if not isinstance(spec, str) or not spec or spec == next(iter(engine.board_sides), None):
        return None
    return spec


def board_of(game: str, options: Mapping[str, Any], table_board: Callable[[str], Board]) -> Board:
    engine = load(game)
    spec = _chosen(engine, options)
    if spec is None:
        return table_board(game)
    if spec in engine.board_sides:
        return engine.own_board(spec)
    try:
        return load_board(spec)
    except (BoardFileError, OSError):  # the game could not have started on it: the table's own then
        return table_board(game)


def board_in_play(engine: Game, state: Any, options: Mapping[str, Any], table_board: Callable[[str], Board]) -> Board:
    """The board a game in play is on: the one it was set up on when its options chose one (as read then, whatever
    has become of its file), else the table's board for the game."""
    return engine.board(state) if _chosen(engine, options) is not None else table_board(engine.name)


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


def board_set(game: str, options: Mapping[str, Any]) -> str | None:
    """The board a game's options choose other than the game's own (the table's): a side the game brings (ORBIT's
    `back`), or the name of a board data set (the options hold its file, whose name is the set's); None for the
    game's own board."""
    engine = load(game)
    spec = _chosen(engine, options)
    return spec if spec is None or spec in engine.board_sides else Path(spec).name


def board_words(game: str, name: str | None, title: str) -> str:
    """The board as the phones name it: “my-copy”, ORBIT's back side, or a game's own board."""
    engine = load(game)
    if name is None:
        return engine.board_words or f"{title}'s own board"
    return engine.board_sides.get(name) or f"the board “{name}”"


def grid_profile_of(base: Path, game: str, name: str | None, own: bool) -> Path:
    """Where the table keeps the grid profile of a board: the configured file for the table's own board (`own`), and
    beside it one per other board, named for the game and the board set (grid.json: grid.orbit.my-copy.json,
    grid.orbit.back.json, grid.dakalio.json for another game's own board)."""
    if own:
        return base
    return base.with_name(f"{base.stem}.{game}{'' if name is None else '.' + name}{base.suffix}")
