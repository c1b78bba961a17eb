"""The default Orbix mat for Dakalio, generated: no public drawing of the real mat exists.

A hexagon of 61 spots on a triangular grid, four spots from the centre to each corner. Spot ids are a file letter
and a rank number: axial coordinates (q, r) with q from -4 (file a) to 4 (file i) and r from -4 (rank 1) to 4
(rank 9), so the centre is e5; a spot sits at x = q + r/2, y = r * sqrt(3)/2 spacings from the centre.

- The Load Zone is the centre and its six neighbours: the blue base in the centre (e5), red bases at f5, d6 and e4,
  and three plain Load Zone spots (e6, d5, f4) between them.
- Each red base sends an anti-gravity signal straight out to a corner: three signal spots per base (f5: g5, h5, i5;
  d6: c7, b8, a9; e4: e3, e2, e1).
- Stations (6) are the ring-two spots beside a red base, two per base; Ports (3) are the ring-two spots straight out
  from the plain Load Zone spots, each at the end of a line from the blue base.
- The Control Zone is the outer ring of 24 spots.
- Lines: the grid's straight lines in its three directions, and a six-pointed star of lines joining every other
  corner. A line leaving the mat reappears at the opposite side (the point mirrored through the centre), so each
  line runs on into the line opposite it: the two form one loop round the planet, stored as the board's "orbits"
  `<loop>/1` and `<loop>/2` (a loop through the centre is a single orbit `<loop>`).
- Entry lines are directed links of kind "entry" from a Control Zone spot to the first spot inside: the star's
  corners have three (the spoke and two star lines), edge spots two, the three corners on a signal none.
- Directed links of kind "serves" join each base to the Stations or Ports it serves.

Write it to a file to edit for your own mat: `python -m companion.boards.dakalio mat.json`.
"""

from __future__ import annotations

import math
import sys

from companion.boards import trajectory
from companion.boards.model import Board, Link, Site

RADIUS = 4
SPACING_MM = 60.0
DEFAULT_SIZE_MM = 600.0

UNIT = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
RED_DIRECTIONS = (UNIT[0], UNIT[2], UNIT[4])
PLAIN_DIRECTIONS = (UNIT[1], UNIT[3], UNIT[5])
# The grid's three line directions, and the star's three (each the sum of two neighbouring unit steps).
GRID_LINES = ((1, 0), (0, 1), (-1, 1))
STAR_LINES = ((1, 1), (-1, 2), (-2, 1))

Hex = tuple[int, int]


def spot_id(q: int, r: int) -> str:
    return f"{'abcdefghi'[q + RADIUS]}{r + RADIUS + 1}"


def ring(h: Hex) -> int:
    q, r = h
    return max(abs(q), abs(r), abs(q + r))


def _scaled(d: Hex, k: int) -> Hex:
    return d[0] * k, d[1] * k


def _line(start: Hex, step: Hex) -> list[Hex]:
    """Every grid point from `start` (extended backwards first) along `step` while on the mat."""
    q, r = start
    while ring((q - step[0], r - step[1])) <= RADIUS:
        q, r = q - step[0], r - step[1]
    points = []
    while ring((q, r)) <= RADIUS:
        points.append((q, r))
        q, r = q + step[0], r + step[1]
    return points


def _loops() -> dict[str, list[list[Hex]]]:
    """Each loop round the planet as its one or two straight parts, in travel order."""
    loops: dict[str, list[list[Hex]]] = {}
    corners = [_scaled(d, RADIUS) for d in UNIT]
    for n, step in enumerate(GRID_LINES):
        # Lines of this direction through the points k steps from the centre along a perpendicular-ish unit.
        across = UNIT[(UNIT.index(step) + 2) % 6]
        for k in range(RADIUS + 1):
            parts = [_line(_scaled(across, k), step)]
            if k:
                parts.append(_line(_scaled(across, -k), step))
            loops[f"{'ENW'[n]}{k}"] = parts
    for n, step in enumerate(STAR_LINES):
        ends = [c for c in corners if _line(c, step)[0] == c and len(_line(c, step)) > 1]
        parts = [_line(c, step) for c in ends]
        parts.sort(key=lambda p: p[0])  # a stable order; the wrap joins one part's end to the other's start
        loops[f"S{n}"] = parts
    return loops


def build(size_mm: float = DEFAULT_SIZE_MM) -> Board:
    """The default Orbix mat printed `size_mm` square."""
    centre = size_mm / 2
    red_bases = {d: d for d in RED_DIRECTIONS}
    signals = {_scaled(d, k) for d in RED_DIRECTIONS for k in range(2, RADIUS + 1)}
    ports = {_scaled(d, 2) for d in PLAIN_DIRECTIONS}
    stations = {}
    for i, d in enumerate(UNIT):
        if d in red_bases:
            for other in (UNIT[(i + 1) % 6], UNIT[(i - 1) % 6]):
                stations[(d[0] + other[0], d[1] + other[1])] = d
    hexes = [(q, r) for q in range(-RADIUS, RADIUS + 1) for r in range(-RADIUS, RADIUS + 1) if ring((q, r)) <= RADIUS]
    hexes.sort(key=lambda h: (-h[1], h[0]))  # top row first, left to right: the order a grid is wired in
    sites = []
    for h in hexes:
        kind, tags, role = "spot", [], ""
        if h == (0, 0):
            kind, tags, role = "base", ["blue"], "blue base"
        elif h in red_bases:
            kind, tags, role = "base", ["red"], "red base"
        elif ring(h) == 1:
            kind, role = "load", "Load Zone"
        if ring(h) == RADIUS:
            tags.append("control")
        if h in signals:
            tags.append("signal")
        if h in stations:
            tags, role = [*tags, "station"], "Station"
        if h in ports:
            tags, role = [*tags, "port"], "Port"
        q, r = h
        x = centre + SPACING_MM * (q + r / 2)
        y = centre + SPACING_MM * r * math.sqrt(3) / 2
        sid = spot_id(q, r)
        sites.append(Site(sid, round(x, 2), round(y, 2), kind, f"{sid} ({role})" if role else "", tuple(tags)))
    orbits: dict[str, tuple[str, ...]] = {}
    links: list[Link] = []
    inner = {h for h in hexes if ring(h) < RADIUS}
    for name, parts in _loops().items():
        for i, part in enumerate(parts, start=1):
            orbits[name if len(parts) == 1 else f"{name}/{i}"] = tuple(spot_id(*h) for h in part)
            # Entry lines: from a Control Zone spot (not on a signal) straight to the first spot inside.
            for a, b in ((part[0], part[1]), (part[-1], part[-2])):
                if ring(a) == RADIUS and a not in signals and b in inner:
                    links.append(Link(spot_id(*a), spot_id(*b), "entry", directed=True))
    for station, base in stations.items():
        links.append(Link(spot_id(*base), spot_id(*station), "serves", directed=True))
    for port in ports:
        links.append(Link(spot_id(0, 0), spot_id(*port), "serves", directed=True))
    links.sort(key=lambda link: (link.kind, link.a, link.b))
    # The camera finds every board by the same four corner markers: Trajectory's, on a board of the same size.
    fiducials = trajectory.build(size_mm).fiducials
    return Board(
        "dakalio",
        size_mm,
        size_mm,
        tuple(sites),
        tuple(links),
        orbits,
        fiducials,
        "The companion's default Orbix mat (see docs/rules/dakalio.md): lines are orbits; '<loop>/1' and '<loop>/2' "
        "continue each other round the planet; 'entry' links mark entry lines, 'serves' links join bases to the "
        "Stations and Ports they serve.",
    )


def main(argv: list[str]) -> int:
    from companion.boards.files import save_board

    if len(argv) != 1:
        print("usage: python -m companion.boards.dakalio OUT.json", file=sys.stderr)
        return 2
    save_board(build(), argv[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
