"""Dakalio's state as immutable values, and the fixed facts of its box."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from typing import Literal

from companion.boards import Board
from companion.jsonfile import file_stamp
from companion.rules import engine
from companion.rules.dakalio.mat import Mat, mat_of, read_board
from companion.rules.rng import Rng

SHIPS_EACH = 10
ASTEROIDS_EACH = 3  # six in the box, three a player (one placed during setup)
DELIVERIES_TO_WIN = 2
WINS_IN_A_ROW = 2  # Supremacy

Crystal = Literal["red", "blue"]
Stage = Literal["portals", "portal", "asteroid", "play", "between", "over"]
Mode = Literal["simple", "supremacy"]


@dataclass(frozen=True)
class Options:
    mode: Mode = "simple"
    # The player who drew asteroid 1 and so plays first in the first game; None: the companion draws.
    first: str | None = None
    # A board file describing the table's own mat; None: the companion's default mat.
    mat: str | None = None


@dataclass(frozen=True, eq=False)
class Material(engine.Material):
    """The mat the game is played on (the default mat or the table's own), as read at setup."""

    board: Board


def material(path: str | None) -> Material:
    """The material of a game on the mat at `path` (None: the default mat), read now; setup's alone."""
    return _material(path, file_stamp(path))


@cache
def _material(path: str | None, stamp: int) -> Material:
    return Material.of(board=read_board(path))


@dataclass(frozen=True)
class Ship:
    owner: str
    dakalio: Crystal | None = None
    delivered: bool = False


@dataclass(frozen=True)
class State:
    options: Options
    material: Material
    players: tuple[str, str]
    rng: Rng
    game: int  # which game of the match (1 in Simple)
    first: str  # who plays first in this game
    stage: Stage
    actor: str | None
    ships: dict[str, Ship]  # spot -> the ship standing there
    asteroids: tuple[str, ...]
    portals: tuple[str, ...]
    use_portals: bool | None
    crystals: tuple[str, ...]  # the bases that still hold their Dakalio
    reserve: dict[str, int]
    captured: dict[str, int]
    asteroids_left: dict[str, int]
    winners: tuple[str, ...] = ()  # the winner of each finished game of the match
    reason: str = ""  # why the last game (or the match) ended
    result: Literal["won"] | None = None  # the whole match is over


def board_of(state: State) -> Mat:
    return mat_of(state.material)


def other(state: State, player: str) -> str:
    a, b = state.players
    return b if player == a else a


def crystal_at(state: State, base: str) -> Crystal:
    return "blue" if base == board_of(state).blue_base else "red"


def held(state: State, player: str) -> int:
    """Dakalio a player has taken: carried or delivered (captured ships never carry any)."""
    return sum(1 for ship in state.ships.values() if ship.owner == player and ship.dakalio)


def delivered(state: State, player: str) -> int:
    return sum(1 for ship in state.ships.values() if ship.owner == player and ship.delivered)


def fresh_game(state: State, first: str) -> State:
    """The board of a new game: every ship in reserve, Dakalio on its bases, no portals or asteroids yet."""
    board = board_of(state)
    return replace(
        state,
        first=first,
        stage="portals",
        actor=first,
        ships={},
        asteroids=(),
        portals=(),
        use_portals=None,
        crystals=(*board.red_bases, board.blue_base),
        reserve={p: SHIPS_EACH for p in state.players},
        captured={p: 0 for p in state.players},
        asteroids_left={p: ASTEROIDS_EACH for p in state.players},
    )
