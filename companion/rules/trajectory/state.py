"""Trajectory's state as immutable values, and the fixed facts of its box (the parts list)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from functools import cache
from typing import Literal

from companion import codec
from companion.boards import Board, BoardFileError, load_board
from companion.boards import trajectory as geometry
from companion.boards.trajectory import ORBIT_SIZES
from companion.jsonfile import file_stamp
from companion.rules import engine
from companion.rules.engine import SetupError
from companion.rules.rng import Rng

Difficulty = Literal["easy", "normal", "hard"]
Outfit = Literal["none", "miner", "interceptor", "engineer", "heavy_lift"]
StationKind = Literal["storage", "trap", "accelerator", "fuel_depot", "refit", "habitat"]
Stage = Literal["infestors", "turn", "orbit", "over"]

PLANETS = ("metal", "home", "helium", "ice")
PLANET_ORBIT = {"metal": 1, "home": 2, "helium": 3, "ice": 4}
# What a miner finds searching empty space on each orbit (orbit 2, home's, holds nothing).
SEARCH_FINDS = {1: "metal", 3: "helium", 4: "ice"}
BLANK = "blank"
# The author's spinner: 12 sectors; ice shows on 8, helium on 6, metal on 3, six show two resources, one is blank.
SPINNER = (
    "ice+helium", "ice+metal", "helium", "ice", "ice+helium", "metal",
    "ice+helium", "ice", "helium", "ice+metal", "ice+helium", BLANK,
)  # fmt: skip


def sector_shows(sector: str) -> tuple[str, ...]:
    """The resources a spinner sector shows ("ice+helium": ice and helium; "blank": none)."""
    return () if sector == BLANK else tuple(sector.split("+"))


# What a miner extracts from each planet.
EXTRACTS = {"metal": "metal", "helium": "helium", "ice": "ice"}
RESOURCES = ("metal", "helium", "ice")
GOODS = ("fuel", "metal", "helium", "ice", "provisions")
OUTFITS: tuple[str, ...] = ("miner", "interceptor", "engineer", "heavy_lift")

# The box: how many of each part exist. Building past these is impossible at a real table.
FUEL_TOKENS = 70
RESOURCE_TOKENS = 12
PROVISION_TOKENS = 6
RINGS = 8
FUEL_REFIT_TOKENS = 5
HABITAT_TOKENS = 3
INFESTOR_CARDS_PER_KIND = 3
ACTION_CARDS_PER_PILE = 12
INFESTOR_CARDS_PER_PILE = (2, 4, 6)

HABITATS_NEEDED = {"easy": 1, "normal": 2, "hard": 3}
# Planets other than home that may be lost to infestation without losing the game.
INFESTED_ALLOWED = {"easy": 3, "normal": 2, "hard": 1}


# The bounds of the numbers in the options: degrees round the table, slots a mat can have, spaces on an orbit.
Degrees = codec.number(0, 360)
Slots = codec.whole(1, 16)
ExtraSlots = codec.whole(0, 16)
Space = codec.whole(0, max(ORBIT_SIZES) - 1)


@dataclass(frozen=True)
class Options:
    difficulty: Difficulty = "normal"
    # Where each player sits, in degrees counter-clockwise from the board's east edge (270 = the south edge);
    # None spreads the players evenly around the table starting at the south edge.
    seats: tuple[Degrees, ...] | None = None
    # Fuel/cargo slots on a ship mat's regular side (8 on the printed mat), and the extra slots on its heavy-lift side.
    slots: Slots = 8
    heavy_lift_extra_slots: ExtraSlots = 8
    # The resource spinner's sectors, equally likely, in order round the wheel: each names what it shows, one
    # resource, two joined by "+", or "blank". The default is the author's spinner (docs/rules/trajectory.md).
    spinner: tuple[str, ...] = SPINNER
    # Planet positions as space numbers on their orbits, for a table that placed its planets itself.
    planets: dict[str, Space] | None = None
    # A board file of the table's own copy: its spaces where that copy prints them (the same spaces and paths).
    board: str | None = None


@dataclass(frozen=True)
class Hold:
    """Tokens on a ship mat or in a storage ring."""

    fuel: int = 0
    metal: int = 0
    helium: int = 0
    ice: int = 0
    provisions: int = 0

    @property
    def weight(self) -> int:
        return self.fuel + self.metal + self.helium + self.ice + self.provisions

    @property
    def cargo(self) -> int:
        return self.weight - self.fuel

    def plus(self, **amounts: int) -> Hold:
        return replace(self, **{k: getattr(self, k) + v for k, v in amounts.items()})

    def minus(self, **amounts: int) -> Hold:
        return self.plus(**{k: -v for k, v in amounts.items()})

    def covers(self, **amounts: int) -> bool:
        return all(getattr(self, k) >= v for k, v in amounts.items())

    def is_empty(self) -> bool:
        return self.weight == 0

    def items(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Ship:
    site: str
    hold: Hold
    cards: int = 0
    outfit: Outfit = "none"


@dataclass(frozen=True)
class Station:
    kind: StationKind
    site: str
    hold: Hold = Hold()
    provisioned: bool = False


@dataclass(frozen=True)
class Infestor:
    kind: str
    target: str
    site: str
    # True once it has reached and infested its planet: it stays there as the mark of the infestation.
    settled: bool = False


@dataclass(frozen=True)
class Pile:
    actions: int
    infestors: int

    @property
    def size(self) -> int:
        return self.actions + self.infestors


@dataclass(frozen=True)
class Turn:
    ship: str
    drawn: bool = False
    moved: bool = False
    refuelled: bool = False
    boosted: bool = False


@dataclass(frozen=True, eq=False)
class Material(engine.Material):
    """The board the game is played on (ours, or the table's own copy of it), as read at setup. The rules follow
    the board's printed geometry, which every copy shares; the table reads the copy where its pieces stand."""

    board: Board


def material(path: str | None) -> Material:
    """The material of a game on the board file at `path` (None: ours), read now; setup's alone."""
    return _material(path, file_stamp(path))


@cache
def _material(path: str | None, stamp: int) -> Material:
    if path is None:
        return Material.of(board=geometry.build())
    try:
        board = load_board(path)
    except (BoardFileError, OSError) as error:
        raise SetupError(f"options.board: {error}") from None
    geometry.same_spaces(board)
    return Material.of(board=board)


@dataclass(frozen=True)
class State:
    options: Options
    material: Material
    players: tuple[str, ...]
    round: int
    stage: Stage
    turn: Turn | None
    ships: dict[str, Ship]
    planets: dict[str, str]
    infested: tuple[str, ...]
    stations: tuple[Station, ...]
    infestors: tuple[Infestor, ...]
    deck: tuple[Pile, ...]
    infestor_cards: dict[str, int]
    rng: Rng
    result: Literal["won", "lost"] | None = None
    reason: str = ""


def capacity(ship: Ship, options: Options) -> int:
    """Fuel/cargo slots on the ship's mat (the heavy-lift side adds its extra slots)."""
    extra = options.heavy_lift_extra_slots if ship.outfit == "heavy_lift" else 0
    return options.slots + extra


def free_slots(ship: Ship, options: Options) -> int:
    return capacity(ship, options) - ship.hold.weight


def station_at(state: State, site: str) -> Station | None:
    for station in state.stations:
        if station.site == site:
            return station
    return None


def planet_at(state: State, site: str) -> str | None:
    for planet, where in state.planets.items():
        if where == site:
            return planet
    return None


def pile_size(state: State) -> int:
    return sum(p.size for p in state.deck)


def in_play(state: State, good: str) -> int:
    """Tokens of one kind on ship mats and in storage rings (the rest is in the supply or spent)."""
    holds = [s.hold for s in state.ships.values()] + [s.hold for s in state.stations]
    return sum(getattr(h, good) for h in holds)


def supply_left(state: State, good: str) -> int:
    """Tokens of one kind still in the box's supply."""
    if good == "fuel":
        return FUEL_TOKENS - in_play(state, "fuel")
    if good == "provisions":
        habitats = [s for s in state.stations if s.kind == "habitat"]
        used = len(habitats) + sum(1 for s in habitats if s.provisioned)
        return PROVISION_TOKENS - in_play(state, "provisions") - used
    return RESOURCE_TOKENS - in_play(state, good)


def with_ship(state: State, name: str, ship: Ship) -> State:
    return replace(state, ships={**state.ships, name: ship})


def with_station(state: State, old: Station, new: Station | None) -> State:
    stations = tuple(new if s is old else s for s in state.stations if s is not old or new is not None)
    return replace(state, stations=stations)
