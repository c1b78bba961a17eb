"""Orbital Battle's state as immutable values: the units on the maps, the books, and where the turn stands."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Literal

from companion import codec
from companion.boards import Board
from companion.boards.orbital_battle import DEFAULT_RADIUS, DEFAULT_RINGS
from companion.boards.orbital_battle_maps import PlanetMap
from companion.rules import engine
from companion.rules.orbital_battle.units import KINDS, START_POINTS
from companion.rules.rng import Rng

Stage = Literal["roll", "home", "deploy", "turn", "over"]
PLANETS = ("1", "2", "3", "4", "5", "6", "7", "8")

# The phases of a turn after the orbit phase, in order: (phase, seat), seat 0 is this turn's player 1.
STEPS: tuple[tuple[str, int | None], ...] = (
    ("orbit", None),
    ("build", 0),
    ("build", 1),
    ("load", 0),
    ("load", 1),
    ("space_move", 0),
    ("space_combat", 0),
    ("bombard", 0),
    ("space_move", 1),
    ("space_combat", 1),
    ("bombard", 1),
    ("land_move", 0),
    ("land_combat", 0),
    ("land_move", 1),
    ("land_combat", 1),
)


# The bounds of the numbers in the options: rings of the map (the reed grid holds radius 8 at most), the points to
# buy the first units with (the rulebook's 50, or a handicap), and a turn limit no evening outlasts.
Ring = codec.whole(1, 8)
StartPoints = codec.whole(0, 500)
TurnLimit = codec.whole(0, 200)


@dataclass(frozen=True)
class Options:
    # The planet orbits as ring numbers round the star, inner to outer (the last is shared by planets 7 and 8),
    # and the number of rings on the map; 3r(r+1)+1 hexes must fit the 16 x 16 reed grid (radius 8 at most).
    rings: tuple[Ring, ...] = DEFAULT_RINGS
    radius: Ring = DEFAULT_RADIUS
    # Planet number -> a terrain file of the table's own (format of companion/boards/orbital_battle_data/).
    planet_files: dict[str, str] | None = None
    # A solar map of the table's own (companion/boards/solar_map.py): its hexes, orbits and start hexes replace
    # the rings and radius above.
    solar_map: str | None = None
    start_points: StartPoints = START_POINTS
    # Turns after which the game ends without a six-planet win (0: play on until someone holds six planets).
    turn_limit: TurnLimit = 0


@dataclass(frozen=True)
class Unit:
    kind: str
    owner: str
    number: int
    # A solar hex ("r3s7"), a planet hex ("p3:0402") or a transport's hold ("in:red-transport-1").
    site: str

    # A unit's id, domain and planet are asked of every unit after every action (who holds which planet, which
    # unit an action names); units outlive the states they are in, so each is worked out once per unit.
    def __hash__(self) -> int:  # a state's units are a key of the movement caches, hashed at every move's check
        return self._hash

    @cached_property
    def _hash(self) -> int:
        return hash((self.kind, self.owner, self.number, self.site))

    @cached_property
    def uid(self) -> str:
        return f"{self.owner}-{self.kind}-{self.number}"

    @cached_property
    def domain(self) -> str:
        return KINDS[self.kind].domain

    @cached_property
    def planet(self) -> str | None:
        return self.site[1:].split(":")[0] if self.site.startswith("p") else None

    @property
    def hex(self) -> str:
        return self.site.split(":")[1]


@dataclass(frozen=True)
class Retreat:
    """A retreat owed: the unit, how many hexes, and the sites of the enemies it must not end closer to."""

    unit: str
    hexes: int
    away: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class Material(engine.Material):
    """The solar map and every planet's terrain the game is played on (ours, or the table's own files), as read at
    setup (game.read_material)."""

    board: Board
    planets: dict[str, PlanetMap]


@dataclass(frozen=True)
class State:
    options: Options
    material: Material
    players: tuple[str, ...]
    stage: Stage
    planets: dict[str, str]
    points: dict[str, int]
    rng: Rng
    turn: int = 0
    step: int = 0
    first: str = ""  # this turn's player 1 (in setup: who picks or buys now)
    chooser: str = ""  # who won the die roll for the first pick of a home world
    homes: dict[str, str] | None = None
    units: tuple[Unit, ...] = ()
    acted: tuple[str, ...] = ()  # units that have moved or attacked in this phase
    fought: tuple[str, ...] = ()  # ships that attacked ships this turn (they may not bombard)
    loaded: tuple[str, ...] = ()  # transports that loaded this turn
    unloaded: tuple[str, ...] = ()  # transports that unloaded this turn
    retreats: tuple[Retreat, ...] = ()
    winner: str | None = None
    reason: str = ""

    # Every legal move of a state asks where its units stand: worked out once per state (a state's fields never
    # change; a cached value is no field, so it is neither compared nor stored).
    @cached_property
    def places(self) -> tuple[dict[str, list[tuple[int, Unit]]], dict[str, list[Unit]]]:
        """Site -> (position in `units`, unit) for the units standing there; a transport's hold -> its cargo,
        bottom to top."""
        standing: dict[str, list[tuple[int, Unit]]] = {}
        holds: dict[str, list[Unit]] = {}
        for position, u in enumerate(self.units):
            if u.site.startswith("in:"):
                holds.setdefault(u.site, []).append(u)
            else:
                standing.setdefault(u.site, []).append((position, u))
        return standing, holds

    @cached_property
    def conquest_due(self) -> bool:
        """Whether a conquest is due in this state (none is, in a state an action led to)."""
        from companion.rules.orbital_battle.control import losses  # control reads states: imported when asked

        return bool(losses(self.units))


def planet_site(planet: str, hex_: str) -> str:
    return f"p{planet}:{hex_}"


def other(state: State, player: str) -> str:
    return state.players[1 - state.players.index(player)]


def seat(state: State, index: int) -> str:
    """This turn's player 1 (index 0) or player 2 (index 1)."""
    return state.first if index == 0 else other(state, state.first)


def unit(state: State, uid: str) -> Unit | None:
    for u in state.units:
        if u.uid == uid:
            return u
    return None


def at(state: State, site: str) -> Unit | None:
    """The unit or structure standing on a site (cargo is never 'at' a site)."""
    for u in state.units:
        if u.site == site:
            return u
    return None


def occupied(state: State) -> dict[str, Unit]:
    return standing(state.units)


def standing(units: tuple[Unit, ...]) -> dict[str, Unit]:
    """Site -> the unit standing there (cargo stands nowhere)."""
    return {u.site: u for u in units if not u.site.startswith("in:")}


def cargo(state: State, transport: Unit) -> tuple[Unit, ...]:
    where = f"in:{transport.uid}"
    return tuple(u for u in state.units if u.site == where)


def on_planet(state: State, planet: str) -> tuple[Unit, ...]:
    prefix = f"p{planet}:"
    return tuple(u for u in state.units if u.site.startswith(prefix))


def moved(state: State, old: Unit, site: str) -> State:
    # Units are unique in a state: the one to move is found by its counter (a unit's fields compare slowly).
    return replace(
        state, units=tuple(replace(u, site=site) if u.number == old.number and u == old else u for u in state.units)
    )


def removed(state: State, *gone: Unit) -> State:
    """The state without these units, and without whatever they carry."""
    holds = {f"in:{u.uid}" for u in gone}
    return replace(state, units=tuple(u for u in state.units if u not in gone and u.site not in holds))


def next_number(state: State, owner: str, kind: str) -> int | None:
    """The lowest counter number of a kind the owner has not got in play; None when the box has no more."""
    used = {u.number for u in state.units if u.owner == owner and u.kind == kind}
    free = [n for n in range(1, KINDS[kind].qty + 1) if n not in used]
    return free[0] if free else None


def phase_name(state: State) -> str:
    return STEPS[state.step][0] if state.stage == "turn" else state.stage


def actor(state: State) -> str | None:
    """Who acts now: the owner of a unit owing a retreat first, else the phase's player (None: the table)."""
    if state.stage == "over":
        return None
    if state.retreats:
        owed = unit(state, state.retreats[0].unit)
        return owed.owner if owed else None
    if state.stage == "roll":
        return None
    if state.stage in ("home", "deploy"):
        return state.first
    index = STEPS[state.step][1]
    return None if index is None else seat(state, index)
