"""The two maps seen from a state: solar hexes round the star and the planets' hexes, with what blocks what."""

from __future__ import annotations

from companion.boards.files import BoardFileError
from companion.boards.orbital_battle import SUN, planet_neighbours, solar_distance, solar_neighbours
from companion.boards.orbital_battle_maps import PlanetMap, load_map
from companion.rules.engine import SetupError
from companion.rules.orbital_battle.state import PLANETS, State, Unit, occupied, planet_site
from companion.rules.orbital_battle.units import HEAVY


def near(state: State, site: str) -> tuple[str, ...]:
    """The solar hexes next to a solar hex."""
    return solar_neighbours(state.options.radius)[site]


def distance(state: State, a: str, b: str) -> int:
    return solar_distance(state.options.radius, a, b)


def planet_map(state: State, planet: str) -> PlanetMap:
    """A planet's terrain, as the game was set up with it."""
    return state.material.planets[planet]


def read_planet(planet: str, path: str | None) -> PlanetMap:
    """A planet's terrain as setup reads it: the table's file, else ours; SetupError naming a file that is wrong."""
    try:
        return load_map(planet, path)
    except BoardFileError as error:  # only the table's own file can be wrong: the defaults are tested
        raise SetupError(f"options.planet_files.{planet}: {error}") from None


def planet_in(state: State, site: str) -> str | None:
    """The planet standing on a solar hex, if any."""
    for planet, where in state.planets.items():
        if where == site:
            return planet
    return None


def solid(state: State, site: str) -> bool:
    """The star and the planets: no ship enters or passes them."""
    return site == SUN or planet_in(state, site) is not None


def planets_beside(state: State, site: str) -> tuple[str, ...]:
    """The planets next to a solar hex."""
    around = set(near(state, site))
    return tuple(p for p in PLANETS if state.planets[p] in around)


def can_enter(kind: str, terrain: str, feature: str) -> bool:
    """May a land unit of this kind enter a hex of this terrain and feature at all?"""
    if terrain in ("edge", "water"):
        return False
    return not (kind in HEAVY and (terrain == "swamp" or feature == "resource"))


def land_hexes(state: State, planet: str) -> tuple[str, ...]:
    return planet_map(state, planet).hexes


def enemy_land_beside(state: State, u: Unit, hex_: str) -> bool:
    """Is an enemy land unit next to this hex of u's planet (its zone of control)?"""
    taken = occupied(state)
    for n in planet_neighbours(hex_):
        there = taken.get(planet_site(u.planet or "", n))
        if there is not None and there.owner != u.owner and there.domain == "land":
            return True
    return False
