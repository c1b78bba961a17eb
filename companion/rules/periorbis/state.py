"""Periorbis's state as immutable values: the players' books, the asteroids, the ships, the pool and the turn."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache
from typing import Literal

from companion.boards import Board
from companion.boards import periorbis as board_of_asteroids
from companion.jsonfile import file_stamp
from companion.rules import engine
from companion.rules.periorbis import datafiles
from companion.rules.periorbis.datafiles import Card, Data, Ore, ShipCard
from companion.rules.rng import Rng

Stage = Literal["hire", "actions", "bureaucracy", "over"]

# Numbers the rulebook gives.
HQ_SLOTS = 7
DEVELOP_COST = {6: 12, 7: 17}
UPGRADE_COST = 5
RESEARCH_PRICE = 10
SELL_PRICE = 2  # per crate sold from storage, plus the seller's contract skill
HIRE_MULTIPLIERS = (5, 4, 3)
SHIPS_IN_PLAY = {2: 1, 3: 2, 4: 2, 5: 3, 6: 3}
POOL_FIRST_DRAW = {2: 2, 3: 2, 4: 2, 5: 3, 6: 3}
POOL_OVER_PLAYERS = 2
FULL_TURNS = 12
SHORT_TURNS = 6


@dataclass(frozen=True)
class Options:
    length: Literal["full", "short"] = "full"
    # A folder with the table's own data files (any of asteroids, orbit, employees, ships, setup .json).
    data: str | None = None
    # Who draws the trading ship and employee cards: the companion (from its shuffled decks), or the table, which
    # then says which card came up.
    cards: Literal["companion", "table"] = "companion"


@dataclass(frozen=True)
class Employee:
    card: int  # the card's number (start cards are numbered 0)
    where: str = "hq"  # "hq", or the asteroid whose base the disc stands on


@dataclass(frozen=True)
class Base:
    slot: int  # which base slot on the asteroid (1 first)
    crates: int = 0  # ore crates mined and waiting beside the base


@dataclass(frozen=True)
class Books:
    """One player's HQ board and tracks."""

    credits: int
    employees: dict[str, Employee]  # HQ slot ("1".."7") -> the employee in it
    vp: int = 0
    research: int = 0
    storage: int = 0  # ore crates in the HQ store
    fleet: int = 3
    drive: int = 1
    developed: tuple[int, ...] = ()  # HQ slots 6 and 7 once developed
    bases: dict[str, Base] = field(default_factory=dict)


@dataclass(frozen=True)
class Contract:
    player: str
    crates: int = 0  # crates supplied
    bonus: int = 0  # agent bonus cubes


@dataclass(frozen=True)
class Ship:
    card: str
    rows: tuple[Contract | None, ...]

    @property
    def crates(self) -> int:
        return sum(c.crates for c in self.rows if c is not None)


@dataclass(frozen=True)
class Offer:
    card: int
    multiplier: int = 5  # hire price in wages: 5 on arrival, then 4, then 3


@dataclass(frozen=True)
class Turn:
    """The acting player's progress through the employee actions phase."""

    player: str
    acted: tuple[int, ...] = ()  # HQ slots of the employees who have acted, in order
    captain: int | None = None  # the employee whose Transport Cargo action is open
    carried: int = 0  # cargo that captain has carried
    cargo: int = 0  # fleet capacity used this turn


@dataclass(frozen=True, eq=False)
class Material(engine.Material):
    """The game's data (ours, each file of a table's folder replacing ours) and the board its asteroids make, as read
    at setup."""

    board: Board
    data: Data


def material(folder: str | None) -> Material:
    """The material of a game with the data in `folder` (None: ours), read now; setup's alone."""
    return _material(folder, file_stamp(folder))


@cache
def _material(folder: str | None, stamp: int) -> Material:
    found = datafiles.load(folder)
    return Material.of(board=board_of_asteroids.build(found.asteroids), data=found)


@dataclass(frozen=True)
class State:
    options: Options
    material: Material
    players: tuple[str, ...]
    order: tuple[str, ...]  # the player order track, position 1 (the "winning" player) first
    turn: int
    stage: Stage
    seat: int  # index into the acting order (reverse player order) during hire and actions
    books: dict[str, Books]
    ore: dict[str, Ore]  # asteroid -> ore left on its tracks
    ships: tuple[Ship, ...]
    ship_decks: tuple[tuple[str, ...], ...]
    pool: tuple[Offer, ...]
    employee_decks: tuple[tuple[int, ...], ...]
    rng: Rng
    active: Turn | None = None
    owed: tuple[str, ...] = ()  # cards the table has still to draw and reveal, in order ("ship", "employee")
    winners: tuple[str, ...] = ()
    reason: str = ""


def data(state: State) -> Data:
    return state.material.data


def turns(state: State) -> int:
    return SHORT_TURNS if state.options.length == "short" else FULL_TURNS


def acting_order(state: State) -> tuple[str, ...]:
    """Players act in reverse player order: the "losing" player first."""
    return tuple(reversed(state.order))


def card(state: State, number: int) -> Card:
    return data(state).cards[number]


def ship_card(state: State, ship: Ship) -> ShipCard:
    return data(state).ships[ship.card]


def reach(state: State, turn: int | None = None) -> dict[str, int]:
    """Asteroid -> the drive level it needs on a turn; asteroids not listed cannot be reached at all."""
    turn = state.turn if turn is None else turn
    placed = dict(data(state).orbit[turn - 1])
    if state.options.length == "short":
        placed.update(data(state).short_orbit.get(str(turn), {}))
    return {name: level for name, level in placed.items() if name in state.ore}


def accessible(state: State, player: str, asteroid: str) -> bool:
    level = reach(state).get(asteroid)
    return level is not None and state.books[player].drive >= level


def wage_bill(state: State, player: str) -> int:
    """The wage track: the wages of every employee the player has."""
    return sum(card(state, e.card).wage for e in state.books[player].employees.values())


def top_number(state: State, player: str) -> int:
    return max((e.card for e in state.books[player].employees.values()), default=0)


def wages_due(state: State) -> int:
    """Wages the acting player owes at the end of the turn: those who have acted."""
    assert state.active is not None
    employees = state.books[state.active.player].employees
    return sum(card(state, employees[str(slot)].card).wage for slot in state.active.acted)


def open_slots(books: Books, hq_open: int) -> tuple[int, ...]:
    return (*range(1, hq_open + 1), *sorted(books.developed))


def with_books(state: State, player: str, books: Books) -> State:
    return replace(state, books={**state.books, player: books})


def with_ship(state: State, index: int, ship: Ship) -> State:
    return replace(state, ships=(*state.ships[:index], ship, *state.ships[index + 1 :]))


def find_ship(state: State, ship_id: object) -> int | None:
    for i, ship in enumerate(state.ships):
        if ship.card == ship_id:
            return i
    return None
