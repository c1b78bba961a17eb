"""Orbital Battle's solar map as a board file of the table's own: the hexes laid where they are on a group's own
map, which ring each planet's orbit is, and the hex each planet starts on.

The file is an ordinary board (companion.boards.files): the hexes keep the generated map's ids (`r{ring}s{index}`
and `sun`, so the rules' hex arithmetic holds), orbits "1" to "7" are whole rings in clockwise order, and the hex a
planet starts on is tagged `planet-N`. Only the positions, the names and these choices are a group's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from companion.boards.model import Board, Site
from companion.boards.orbital_battle import (
    DEFAULT_RADIUS,
    DEFAULT_RINGS,
    HEX_MM,
    PLANET_NUMBERS,
    SUN,
    build,
    ring_site,
    solar_index,
    start_sites,
)

ORBITS = ("1", "2", "3", "4", "5", "6", "7")  # planets 7 and 8 share the last
_HEX = re.compile(r"^r([1-9][0-9]?)s([0-9]{1,3})$")


class SolarMapError(ValueError):
    """A solar map the game cannot be played on; the message names the hex, the orbit or the planet."""


@dataclass(frozen=True)
class SolarMap:
    radius: int
    rings: tuple[int, ...]
    starts: dict[str, str]  # planet number -> the hex it starts on


def start_tag(planet: str) -> str:
    return f"planet-{planet}"


def solar_board(rings: tuple[int, ...] = DEFAULT_RINGS, radius: int = DEFAULT_RADIUS, hex_mm: float = HEX_MM) -> Board:
    """The generated solar map with each planet's start hex tagged, as the editor starts from it."""
    board = build(rings, radius, hex_mm)
    starts: dict[str, list[str]] = {}
    for planet, site in start_sites(rings).items():
        starts.setdefault(site, []).append(start_tag(planet))
    sites = tuple(replace(s, tags=(*s.tags, *starts.get(s.id, ()))) for s in board.sites)
    return replace(board, sites=sites)


def _where(site: Site) -> str:
    return site.label or site.id


def read_solar(board: Board) -> SolarMap:
    """The radius, orbits and start hexes of a solar map file; SolarMapError naming the first thing wrong."""
    rings_seen = []
    for site in board.sites:
        match = _HEX.match(site.id)
        if site.id != SUN and match is None:
            raise SolarMapError(f"site {_where(site)}: not a hex of the solar map (ids are sun and r<ring>s<n>)")
        if match:
            rings_seen.append(int(match.group(1)))
    if not rings_seen:
        raise SolarMapError("the map has no hexes round the star")
    radius = max(rings_seen)
    ids = {s.id for s in board.sites}
    wanted = solar_index(radius)[0]
    for hex_ in wanted:
        if hex_ not in ids:
            raise SolarMapError(f"hex {hex_} is missing: a map of {radius} rings has all {len(wanted)} hexes")
    for site in board.sites:
        if site.id not in wanted:
            raise SolarMapError(f"site {_where(site)}: ring {site.id[1:].split('s')[0]} has no such hex")
    if sorted(board.orbits) != list(ORBITS):
        raise SolarMapError(
            f"orbits: expected orbits {', '.join(ORBITS)} (one ring each), found "
            f"{', '.join(sorted(board.orbits)) or 'none'}"
        )
    rings = []
    for name in ORBITS:
        cycle = board.orbits[name]
        ring = int(_HEX.match(cycle[0]).group(1)) if cycle and _HEX.match(cycle[0]) else 0  # type: ignore[union-attr]
        if not ring or tuple(cycle) != tuple(ring_site(ring, i) for i in range(6 * ring)):
            raise SolarMapError(f"orbit {name}: must be one whole ring of hexes, clockwise from its top corner")
        if rings and ring <= rings[-1]:
            raise SolarMapError(
                f"orbit {name}: ring {ring} is not outside orbit {int(name) - 1}'s ring {rings[-1]} "
                "(orbits grow outwards from the star)"
            )
        rings.append(ring)
    starts = {}
    for planet in PLANET_NUMBERS:
        tagged = [s for s in board.sites if start_tag(planet) in s.tags]
        if len(tagged) != 1:
            raise SolarMapError(
                f"planet {planet}: needs exactly one start hex (tag {start_tag(planet)}), found {len(tagged)}"
            )
        ring = rings[min(int(planet), len(rings)) - 1]
        if not tagged[0].id.startswith(f"r{ring}s"):
            raise SolarMapError(f"planet {planet}: its start hex {_where(tagged[0])} is not on its orbit (ring {ring})")
        if tagged[0].id in starts.values():
            raise SolarMapError(f"planet {planet}: starts on {_where(tagged[0])}, where another planet starts")
        starts[planet] = tagged[0].id
    return SolarMap(radius, tuple(rings), starts)
