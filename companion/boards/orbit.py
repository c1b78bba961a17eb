"""ORBIT's two board sides, generated: our own design, since the rulebook's board pictures are missing.

Both sides are a triangular grid whose line intersections are the sites ships fly between: a hexagon of radius 8
(217 intersections, so it fits the 16 x 16 reed grid). Site ids count rings outward from the centre and spots
counter-clockwise from east along each ring: "r3s5" is ring 3, spot 5; the centre is "r0s0".

Each planet's orbit runs along one ring through its planet symbols (sites tagged "planet-<colour>"); orbit links
(kind "orbit", and "orbit-fork" for a fork's branch, "orbit-outside" for the gray planet's half circle off the
board) join neighbouring positions. Sites tagged "portal" show the hyper jump portal; sites tagged "station" hold a
space station tile. A user replaces a side with a board file of the same form (see docs/rules/orbit.md);
`python -m companion.boards.orbit back > my_board.json` writes a side as a file to start from.
"""

from __future__ import annotations

import itertools
import json
import math
import sys

from companion.boards.files import board_to_json
from companion.boards.model import Board, Fiducial, Link, Site

RADIUS = 8
STEP_MM = 36.0
SIZE_MM = 700.0
CORNER_MARKER_MM = 60.0
# Axial directions counter-clockwise from east: x = q + r/2, y = r * sqrt(3)/2.
DIRECTIONS = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
COLOURS = ("red", "orange", "yellow", "green", "blue", "purple", "brown", "gray")

# colour -> its ring, then for each side (front, back) the spacing between its planet symbols and the first one's spot
ORBITS = {
    "red": (1, (1, 0), (1, 1)),
    "orange": (2, (2, 1), (2, 0)),
    "yellow": (3, (2, 0), (3, 1)),
    "green": (4, (3, 1), (2, 0)),
    "blue": (5, (3, 2), (3, 0)),
    "purple": (6, (4, 1), (3, 2)),
    "brown": (7, (3, 1), (4, 1)),
    "gray": (8, (4, 2), (4, 0)),
}
FRONT_PORTALS = ("r0s0", "r6s4", "r6s16", "r6s28")
FRONT_STATIONS = (
    "r2s4", "r2s10", "r3s3", "r3s11", "r4s6", "r4s15", "r5s7", "r5s19", "r5s27",
    "r7s6", "r7s20", "r7s33", "r8s8", "r8s28",
)  # fmt: skip

# colour -> (spot of the fork, spot where the branch rejoins, spot of the branch's own symbol on the next ring out)
BACK_FORKS = {"yellow": (1, 7, 5), "blue": (0, 6, 4), "purple": (14, 20, 19)}
BACK_GRAY_SPOTS = range(0, 25, 4)  # the upper half ring; the rest of its circle runs off the board
BACK_PORTALS = ("r0s0", "r3s9", "r3s15", "r5s20", "r6s28", "r8s30", "r8s42")
BACK_STATIONS = (
    "r2s3", "r2s9", "r3s5", "r4s7", "r4s13", "r5s11", "r5s26", "r6s9", "r6s22",
    "r7s10", "r7s18", "r7s27", "r8s35", "r8s45",
)  # fmt: skip


def ring_cells(ring: int) -> list[tuple[int, int]]:
    """Axial cells of a ring, spot 0 east of the centre, counter-clockwise."""
    if ring == 0:
        return [(0, 0)]
    q, r = ring, 0
    cells = []
    for side in range(6):
        dq, dr = DIRECTIONS[(side + 2) % 6]
        for _ in range(ring):
            cells.append((q, r))
            q, r = q + dq, r + dr
    return cells


def site_id(ring: int, spot: int) -> str:
    return f"r{ring}s{spot % max(1, 6 * ring)}"


def _grid() -> dict[tuple[int, int], str]:
    return {cell: site_id(ring, spot) for ring in range(RADIUS + 1) for spot, cell in enumerate(ring_cells(ring))}


def _orbit_spots(ring: int, spacing: int, first: int) -> list[int]:
    return [spot for spot in range(6 * ring) if spot % spacing == first % spacing]


def build(side: str = "front") -> Board:
    """The front ("front") or the Alternate Dimension ("back") side."""
    if side not in ("front", "back"):
        raise ValueError(f"ORBIT's board has a front and a back side, not {side!r}")
    front = side == "front"
    grid = _grid()
    tags: dict[str, list[str]] = {sid: [] for sid in grid.values()}
    links: list[Link] = []
    for (q, r), sid in grid.items():
        for dq, dr in DIRECTIONS[:3]:
            other = grid.get((q + dq, r + dr))
            if other:
                links.append(Link(sid, other, "line"))
    orbits: dict[str, tuple[str, ...]] = {}
    for colour, (ring, *sides) in ORBITS.items():
        spacing, first = sides[0 if front else 1]
        spots = list(BACK_GRAY_SPOTS) if colour == "gray" and not front else _orbit_spots(ring, spacing, first)
        cycle = tuple(site_id(ring, spot) for spot in spots)
        orbits[colour] = cycle
        for sid in cycle:
            tags[sid].append(f"planet-{colour}")
        for a, b in itertools.pairwise(cycle):
            links.append(Link(a, b, "orbit"))
        closing = "orbit-outside" if colour == "gray" and not front else "orbit"
        links.append(Link(cycle[-1], cycle[0], closing))
        if not front and colour in BACK_FORKS:
            start, end, branch = BACK_FORKS[colour]
            via = site_id(ring + 1, branch)
            tags[via].append(f"planet-{colour}")
            links.append(Link(site_id(ring, start), via, "orbit-fork"))
            links.append(Link(via, site_id(ring, end), "orbit-fork"))
    for sid in FRONT_PORTALS if front else BACK_PORTALS:
        tags[sid].append("portal")
    for sid in FRONT_STATIONS if front else BACK_STATIONS:
        tags[sid].append("station")
    centre = SIZE_MM / 2
    sites = []
    for (q, r), sid in grid.items():
        ring, spot = sid[1:].split("s")
        sites.append(
            Site(
                sid,
                round(centre + STEP_MM * (q + r / 2), 2),
                round(centre + STEP_MM * r * math.sqrt(3) / 2, 2),
                "intersection",
                "the centre" if ring == "0" else f"ring {ring} spot {spot}",
                tuple(tags[sid]),
            )
        )
    # Five markers along the bottom edge and five along the top, in the bands the hexagon of sites leaves free:
    # the corners first (ids 0-3, counter-clockwise from bottom-left), then the rest; any three pin the board down.
    inset = CORNER_MARKER_MM / 2 + CORNER_MARKER_MM / 6
    xs = [inset + k * (SIZE_MM - 2 * inset) / 4 for k in range(5)]
    corners = ((xs[0], inset), (xs[4], inset), (xs[4], SIZE_MM - inset), (xs[0], SIZE_MM - inset))
    between = tuple((x, y) for y in (inset, SIZE_MM - inset) for x in xs[1:4])
    fiducials = tuple(Fiducial(i, x, y, CORNER_MARKER_MM) for i, (x, y) in enumerate(corners + between))
    notes = (
        "ORBIT, front side (our design)."
        if front
        else "ORBIT, Alternate Dimension side (our design): forks on yellow, blue and purple; gray leaves the board "
        "at the west end of its arc and comes back at the east end (the orbit-outside link)."
    )
    return Board("orbit", SIZE_MM, SIZE_MM, tuple(sites), tuple(links), orbits, fiducials, notes)


if __name__ == "__main__":  # pragma: no cover - a convenience for users who want a board file to edit
    json.dump(board_to_json(build(sys.argv[1] if len(sys.argv) > 1 else "front")), sys.stdout, indent=1)
    sys.stdout.write("\n")


def board_for(spec: str) -> Board:
    """ "orbit:front" or "orbit:back": one side of the board, for printing and for a table playing that side."""
    return build(spec.partition(":")[2] or "front")
