"""Orbital Battle's two kinds of map, generated: the solar system (hex rings round a star) and the M8 planet tiles.

The solar system is a hexagon of flat-topped hexes of `radius` rings round the star; seven of the rings are planet
orbits (planets 7 and 8 share the outermost). The rulebook's map tiles are pictures we don't have, so the ring
sizes are options; the default (orbits on rings 2 to 8 of a radius-8 map) gives 217 sites, within the 16 x 16 reed
grid. A hex of ring k is `r{k}s{i}`, i counting clockwise from the ring's top corner; the star is `sun`.

A planet map is an M8 tile: hexes `CCRR`, columns 0-8, rows 0-6, flat-topped, odd columns half a hex lower. The
terrain comes from the planet's data file (companion/boards/orbital_battle_data/); `edge` marks the half-hexes.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from functools import lru_cache

from companion.boards.model import Board, Fiducial, Link, Site

DEFAULT_RINGS = (2, 3, 4, 5, 6, 7, 8)
DEFAULT_RADIUS = 8
HEX_MM = 16.0  # centre to corner of a solar hex on the printed board
CORNER_MARKER_MM = 40.0
SUN = "sun"
# Clockwise from the top: the axial steps that walk a ring from its top corner round to it again.
_WALK = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
_AXIAL_DIRECTIONS = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))

Axial = tuple[int, int]


def sites_in(radius: int) -> int:
    """Hexes in a hexagonal map of `radius` rings round the centre (the star counts)."""
    return 3 * radius * (radius + 1) + 1


def ring_site(ring: int, index: int) -> str:
    return SUN if ring == 0 else f"r{ring}s{index % (6 * ring)}"


def ring_axial(ring: int, index: int) -> Axial:
    """Axial (q, r) of hex `index` clockwise from the top corner of ring `ring` (r grows downwards)."""
    if ring == 0:
        return (0, 0)
    q, r = 0, -ring
    index %= 6 * ring
    for dq, dr in _WALK:
        step = min(index, ring)
        q, r, index = q + dq * step, r + dr * step, index - step
    return q, r


@lru_cache(maxsize=8)
def solar_index(radius: int) -> tuple[dict[str, Axial], dict[Axial, str]]:
    """Every solar site with its axial coordinates, both ways round."""
    to_axial = {SUN: (0, 0)}
    for ring in range(1, radius + 1):
        for i in range(6 * ring):
            to_axial[ring_site(ring, i)] = ring_axial(ring, i)
    return to_axial, {a: s for s, a in to_axial.items()}


def axial_distance(a: Axial, b: Axial) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


@lru_cache(maxsize=8)
def solar_neighbours(radius: int) -> dict[str, tuple[str, ...]]:
    to_axial, to_site = solar_index(radius)
    out = {}
    for site, (q, r) in to_axial.items():
        out[site] = tuple(to_site[(q + dq, r + dr)] for dq, dr in _AXIAL_DIRECTIONS if (q + dq, r + dr) in to_site)
    return out


def solar_distance(radius: int, a: str, b: str) -> int:
    to_axial = solar_index(radius)[0]
    return axial_distance(to_axial[a], to_axial[b])


def solar_xy(radius: int, site: str, hex_mm: float = HEX_MM) -> tuple[float, float]:
    """Board mm of a solar hex's centre, origin bottom-left, y up."""
    q, r = solar_index(radius)[0][site]
    half = board_size(radius, hex_mm) / 2
    return half + 1.5 * hex_mm * q, half - math.sqrt(3) * hex_mm * (r + q / 2)


def board_size(radius: int, hex_mm: float = HEX_MM) -> float:
    return round(2 * math.sqrt(3) * hex_mm * (radius + 0.5) + 2 * CORNER_MARKER_MM + 20, 1)


def _fiducials(width: float, height: float, first: int = 0) -> tuple[Fiducial, ...]:
    """Four corner markers from id `first`: the solar map's are 0-3 and planet N's 4N to 4N+3, so that markers
    tell each map on the table from the others (DICT_4X4_50 has ids up to 49)."""
    inset = CORNER_MARKER_MM / 2 + 10
    corners = ((inset, inset), (width - inset, inset), (width - inset, height - inset), (inset, height - inset))
    return tuple(Fiducial(first + i, x, y, CORNER_MARKER_MM) for i, (x, y) in enumerate(corners))


def build(rings: tuple[int, ...] = DEFAULT_RINGS, radius: int = DEFAULT_RADIUS, hex_mm: float = HEX_MM) -> Board:
    """The solar-system map: one site per hex, hex links, and one orbit (clockwise cycle) per planet ring."""
    size = board_size(radius, hex_mm)
    orbit_of_ring = {ring: str(n) for n, ring in enumerate(rings, start=1)}
    sites = []
    for site in solar_index(radius)[0]:
        x, y = solar_xy(radius, site, hex_mm)
        if site == SUN:
            sites.append(Site(SUN, round(x, 2), round(y, 2), "star", "the star", ("sun",)))
            continue
        ring, index = (int(part) for part in site[1:].split("s"))
        tags = (f"orbit-{orbit_of_ring[ring]}",) if ring in orbit_of_ring else ()
        sites.append(Site(site, round(x, 2), round(y, 2), "hex", f"ring {ring} hex {index}", tags))
    links = []
    for site, near in solar_neighbours(radius).items():
        links.extend(Link(site, other, "hex") for other in near if site < other)
    orbits = {orbit_of_ring[ring]: tuple(ring_site(ring, i) for i in range(6 * ring)) for ring in rings}
    notes = (
        f"Orbital Battle solar system: {radius} rings of hexes round the star, planet orbits on rings "
        f"{', '.join(map(str, rings))} (orbit 7, the last, is shared by planets 7 and 8)."
    )
    return Board("orbital_battle", size, size, tuple(sites), tuple(links), orbits, _fiducials(size, size), notes)


PLANET_NUMBERS = ("1", "2", "3", "4", "5", "6", "7", "8")


def start_sites(rings: tuple[int, ...]) -> dict[str, str]:
    """Planets 1-6 start at the corners of their orbits clockwise from the top; 7 at the top and 8 at the bottom
    of the shared outer orbit."""
    out = {}
    for planet in PLANET_NUMBERS:
        n = int(planet)
        ring = rings[min(n, len(rings)) - 1]
        corner = {7: 0, 8: 3}.get(n, n - 1)
        out[planet] = ring_site(ring, corner * ring)
    return out


# Planet maps: M8 tiles.
COLUMNS, ROWS = 9, 7
PLANET_HEX_MM = 22.0


def hex_id(column: int, row: int) -> str:
    return f"{column:02d}{row:02d}"


def parse_hex(hex_: str) -> tuple[int, int]:
    return int(hex_[:2]), int(hex_[2:])


def all_hexes() -> Iterator[str]:
    for column in range(COLUMNS):
        for row in range(ROWS):
            yield hex_id(column, row)


def _hex_axial(hex_: str) -> Axial:
    column, row = parse_hex(hex_)
    return column, row - (column - (column & 1)) // 2


@lru_cache(maxsize=1)
def _planet_neighbours() -> dict[str, tuple[str, ...]]:
    by_axial = {_hex_axial(h): h for h in all_hexes()}
    out = {}
    for h in all_hexes():
        q, r = _hex_axial(h)
        out[h] = tuple(by_axial[(q + dq, r + dr)] for dq, dr in _AXIAL_DIRECTIONS if (q + dq, r + dr) in by_axial)
    return out


def planet_neighbours(hex_: str) -> tuple[str, ...]:
    return _planet_neighbours()[hex_]


def planet_distance(a: str, b: str) -> int:
    return axial_distance(_hex_axial(a), _hex_axial(b))


def planet_xy(hex_: str, hex_mm: float = PLANET_HEX_MM) -> tuple[float, float]:
    column, row = parse_hex(hex_)
    height = math.sqrt(3) * hex_mm
    top = CORNER_MARKER_MM + 20 + ROWS * height
    return CORNER_MARKER_MM + 20 + hex_mm + 1.5 * hex_mm * column, top - height * (row + 0.5 * (column & 1))


def planet_board(planet: int, terrain: dict[str, str], features: dict[str, str]) -> Board:
    """A planet map as a board (for printing and the phone): every hex with its terrain and feature as tags."""
    width = 2 * (CORNER_MARKER_MM + 20) + (1.5 * COLUMNS + 0.5) * PLANET_HEX_MM
    height = 2 * (CORNER_MARKER_MM + 20) + (ROWS + 0.5) * math.sqrt(3) * PLANET_HEX_MM + 10
    sites = []
    for h in all_hexes():
        x, y = planet_xy(h)
        tags = tuple(t for t in (terrain[h], features.get(h, "")) if t)
        sites.append(Site(h, round(x, 2), round(y, 2), "hex", f"planet {planet} hex {h}", tags))
    links = tuple(Link(h, n, "hex") for h in all_hexes() for n in planet_neighbours(h) if h < n)
    notes = f"Orbital Battle planet {planet}: an M8 tile, hexes CCRR, half-hexes tagged edge."
    return Board(
        f"orbital_battle:planet{planet}",
        round(width, 1),
        round(height, 1),
        tuple(sites),
        links,
        {},
        _fiducials(width, height, 4 * planet),
        notes,
    )


def board_for(spec: str) -> Board:
    """ "orbital_battle": the default solar system; "orbital_battle:planetN": planet N's default map."""
    if spec == "orbital_battle":
        return build()
    from companion.boards.orbital_battle_maps import load_map  # imports this module: load it when it is needed

    planet = spec.split(":", 1)[1].removeprefix("planet")
    if planet not in tuple("12345678"):
        raise KeyError(f"no board {spec!r} (orbital_battle:planet1 to orbital_battle:planet8)")
    pmap = load_map(planet)
    return planet_board(int(planet), pmap.terrain, {h: pmap.feature(h) for h in all_hexes() if pmap.feature(h)})
