"""Trajectory's printed board, generated from its published geometry.

Four circular orbits of 4, 8, 16 and 32 spaces; space k of an orbit with N spaces sits at (360/N)(k + 1/2) degrees
counter-clockwise from east; each orbit's radius is 1.587 times the one inside it, the innermost at 0.235 of the
board's half-width. Transfer paths run ahead in the orbit direction: inner space k leads out to outer spaces 2k+1
and 2k+2, and is reached from outer spaces 2k-1 and 2k. Four infestation points sit on the outer orbit at spaces
6, 14, 22 and 30.
"""

from __future__ import annotations

import math

from companion.boards.model import Board, Fiducial, Link, Site

ORBIT_SIZES = (4, 8, 16, 32)
INNER_RADIUS = 0.235
RADIUS_STEP = 1.587
INFESTATION_POINTS = (6, 14, 22, 30)
DEFAULT_SIZE_MM = 600.0
CORNER_MARKER_MM = 40.0


def site_id(orbit: int, space: int) -> str:
    """The id of space `space` (0-based) on orbit `orbit` (1 innermost, 4 outermost): "o2s5"."""
    return f"o{orbit}s{space % ORBIT_SIZES[orbit - 1]}"


def parse_site(site: str) -> tuple[int, int]:
    """(orbit, space) of a site id made by site_id."""
    orbit, space = site[1:].split("s")
    return int(orbit), int(space)


def space_angle(orbit: int, space: float) -> float:
    """Degrees counter-clockwise from east of a (possibly fractional) space index on an orbit."""
    return 360.0 / ORBIT_SIZES[orbit - 1] * (space + 0.5)


def orbit_radius(orbit: int, size_mm: float = DEFAULT_SIZE_MM) -> float:
    return size_mm / 2 * INNER_RADIUS * RADIUS_STEP ** (orbit - 1)


def build(size_mm: float = DEFAULT_SIZE_MM) -> Board:
    """The Trajectory board printed `size_mm` square."""
    centre = size_mm / 2
    sites: list[Site] = []
    links: list[Link] = []
    orbits: dict[str, tuple[str, ...]] = {}
    for orbit, count in enumerate(ORBIT_SIZES, start=1):
        radius = orbit_radius(orbit, size_mm)
        ring = []
        for space in range(count):
            angle = math.radians(space_angle(orbit, space))
            tags = ("infestation",) if orbit == 4 and space in INFESTATION_POINTS else ()
            sid = site_id(orbit, space)
            sites.append(
                Site(
                    sid,
                    round(centre + radius * math.cos(angle), 2),
                    round(centre + radius * math.sin(angle), 2),
                    "space",
                    f"orbit {orbit} space {space}",
                    tags,
                )
            )
            ring.append(sid)
            links.append(Link(sid, site_id(orbit, space + 1), "orbit"))
            if orbit < len(ORBIT_SIZES):
                links.append(Link(sid, site_id(orbit + 1, 2 * space + 1), "transfer-out", directed=True))
                links.append(Link(sid, site_id(orbit + 1, 2 * space + 2), "transfer-out", directed=True))
                links.append(Link(site_id(orbit + 1, 2 * space - 1), sid, "transfer-in", directed=True))
                links.append(Link(site_id(orbit + 1, 2 * space), sid, "transfer-in", directed=True))
        orbits[str(orbit)] = tuple(ring)
    fiducials = _fiducials(size_mm)
    return Board(
        "trajectory",
        size_mm,
        size_mm,
        tuple(sites),
        tuple(links),
        orbits,
        fiducials,
        "Generated from the published geometry; orbits are named 1 (innermost) to 4 (outermost).",
    )


def same_spaces(board: Board) -> None:
    """BoardFileError naming the first difference unless `board` has the printed board's spaces, transfer paths,
    orbits and infestation points (a group's own board places them where its copy has them; the rules count by them)."""
    from companion.boards.files import BoardFileError

    own = build(board.width)
    ids = {site.id for site in board.sites}
    for site in own.sites:
        if site.id not in ids:
            raise BoardFileError(f"{site.label} ({site.id}) is missing: the board has every space of its four orbits")
    for site in board.sites:
        if not own.has_site(site.id):
            raise BoardFileError(f"site {site.label or site.id}: no space of Trajectory's board")
        if set(site.tags) != set(own.site(site.id).tags):
            raise BoardFileError(f"{site.label or site.id}: infestation points are spaces 6, 14, 22 and 30 of orbit 4")
    links = {(link.a, link.b, link.kind) for link in board.links}
    for link in own.links:
        if (link.a, link.b, link.kind) not in links:
            ends = f"{own.site(link.a).label} -> {own.site(link.b).label}"
            raise BoardFileError(f"the {link.kind} path {ends} is missing")
    if board.orbits != own.orbits:
        raise BoardFileError("orbits: the four orbits of 4, 8, 16 and 32 spaces, each in order round the sun")


def _fiducials(size_mm: float) -> tuple[Fiducial, ...]:
    """Three markers in each corner, clear of the outer orbit: one in the corner (ids 0-3, counter-clockwise from
    bottom-left) and one beside it along each edge (4-11), so that any three seen pin the board down and an arm
    over one corner hides only three of twelve."""
    # Whole mm (a print lands cells on whole pixels): the one-cell quiet zone reaches the board's edge, and the
    # next marker's quiet zone touches this one's.
    inset = math.ceil(CORNER_MARKER_MM * 2 / 3)
    step = math.ceil(CORNER_MARKER_MM * 4 / 3)
    corners = ((inset, inset), (size_mm - inset, inset), (size_mm - inset, size_mm - inset), (inset, size_mm - inset))
    beside = []
    for x, y in corners:
        sx, sy = (1 if x < size_mm / 2 else -1), (1 if y < size_mm / 2 else -1)
        beside += [(x + sx * step, y), (x, y + sy * step)]
    return tuple(Fiducial(i, x, y, CORNER_MARKER_MM) for i, (x, y) in enumerate(corners + tuple(beside)))
