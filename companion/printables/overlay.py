"""The board overlay: paper, orbits, transfer paths, site marks and the corner fiducials, from the board data."""

from __future__ import annotations

import math

from companion.boards.model import Board
from companion.printables import reed_part
from companion.printables.shapes import INK, PAPER, Circle, Drawing, Line, Rect, Shape, Text, marker_shapes

SITE_MARK_MM = 9.0
TAGGED_FILL = (236, 200, 190)
SCALE_BAR_MM = 100.0
REED_INK = (200, 40, 40)


def board_drawing(board: Board, labels: bool = True, reeds: bool = False) -> Drawing:
    """The overlay printed 1:1; `labels` adds site ids and a scale bar (text the camera ignores); `reeds` makes it the
    drilling template: each site's reed outline and its two lead holes (reed_part.py)."""
    shapes: list[Shape] = [Rect(0, 0, board.width, board.height, PAPER)]
    for cycle in board.orbits.values():
        shapes.extend(_orbit(board, cycle))
    drawn: set[frozenset[str]] = set()
    for link in board.links:
        pair = frozenset((link.a, link.b))
        if link.kind == "orbit" or pair in drawn:
            continue
        drawn.add(pair)
        a, b = board.site(link.a), board.site(link.b)
        shapes.append(Line(a.x, a.y, b.x, b.y, INK, 0.4))
    for site in board.sites:
        fill = TAGGED_FILL if site.tags else PAPER
        shapes.append(Circle(site.x, site.y, SITE_MARK_MM, INK, 0.8, fill))
    for fid in board.fiducials:
        shapes.extend(marker_shapes(fid.dictionary, fid.id, fid.x, fid.y, fid.size, quiet=fid.size / 6))
    if reeds:
        for site in board.sites:
            shapes.extend(reed_marks(site.x, site.y))
    if labels:
        for site in board.sites:
            shapes.append(Text(site.x - 4, site.y - SITE_MARK_MM - 3, 2.5, site.id))
        x0, y0 = board.width / 2 - SCALE_BAR_MM / 2, 6.0
        shapes.append(Line(x0, y0, x0 + SCALE_BAR_MM, y0, INK, 0.5))
        shapes.append(Line(x0, y0 - 2, x0, y0 + 2, INK, 0.5))
        shapes.append(Line(x0 + SCALE_BAR_MM, y0 - 2, x0 + SCALE_BAR_MM, y0 + 2, INK, 0.5))
        shapes.append(Text(x0 + SCALE_BAR_MM + 3, y0 - 1, 3, f"{SCALE_BAR_MM:g} mm: check this bar to print 1:1"))
        shapes.append(Text(4, board.height - 6, 4, f"Orrery board overlay: {board.name}"))
    return Drawing(board.width, board.height, tuple(shapes))


def reed_holes(x: float, y: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """Where the two lead holes of the reed under a site at (x, y) are drilled (board mm)."""
    return (x + reed_part.HOLES[0], y), (x + reed_part.HOLES[1], y)


def reed_marks(x: float, y: float) -> list[Shape]:
    """A site's reed as the drilling template shows it: the glass (one end at the site's centre, running to +x, as
    every reed lies) and a drill mark at each lead hole."""
    x0, x1 = x + reed_part.GLASS_START, x + reed_part.GLASS_START + reed_part.GLASS_LENGTH
    r = reed_part.GLASS_DIAMETER / 2
    shapes: list[Shape] = [
        Line(x0, y - r, x1, y - r, REED_INK, 0.2),
        Line(x0, y + r, x1, y + r, REED_INK, 0.2),
        Line(x0, y - r, x0, y + r, REED_INK, 0.2),
        Line(x1, y - r, x1, y + r, REED_INK, 0.2),
    ]
    for hx, hy in reed_holes(x, y):
        shapes.append(Circle(hx, hy, reed_part.HOLE_DRILL / 2, REED_INK, 0.2))
        shapes.append(Line(hx - 1.5, hy, hx + 1.5, hy, REED_INK, 0.15))
        shapes.append(Line(hx, hy - 1.5, hx, hy + 1.5, REED_INK, 0.15))
    return shapes


def _orbit(board: Board, cycle: tuple[str, ...]) -> list[Shape]:
    """A circle when the orbit's sites lie on one (Trajectory), else the closed path through them."""
    sites = [board.site(s) for s in cycle]
    cx = sum(s.x for s in sites) / len(sites)
    cy = sum(s.y for s in sites) / len(sites)
    radii = [math.hypot(s.x - cx, s.y - cy) for s in sites]
    mean = sum(radii) / len(radii)
    if len(sites) >= 4 and max(radii) - min(radii) < 0.01 * mean + 0.5:
        return [Circle(cx, cy, mean, INK, 0.6)]
    return [Line(a.x, a.y, b.x, b.y, INK, 0.6) for a, b in zip(sites, sites[1:] + sites[:1], strict=True)]
