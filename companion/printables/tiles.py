"""A board overlay too big for a home printer, cut into pages of A4 or Letter that overlap by 15 mm.

Every page shows its part of the board at true scale inside a 10 mm margin (what most printers cannot print), its
place in the layout, and alignment crosses at the same board positions as its neighbours' in the band they share:
lay the next page over it with the crosses on top of each other, trim one page along its dashed line, tape.
"""

from __future__ import annotations

import math

from companion.errors import UserError
from companion.printables.shapes import INK, WHITE, Circle, Drawing, Line, Rect, Shape, Text

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
MARGIN = 10.0
OVERLAP = 15.0
MARK_EVERY = 60.0  # mm between alignment crosses along a seam


def tile_layout(width: float, height: float, paper: str) -> tuple[float, float, int, int]:
    """(page width, page height, columns, rows): the orientation of the paper that needs fewer pages."""
    if paper not in PAPERS:
        raise UserError(f"print: unknown paper {paper!r} (known: {', '.join(PAPERS)})")
    best = None
    for pw, ph in (PAPERS[paper], PAPERS[paper][::-1]):
        cols = max(1, math.ceil((width - OVERLAP) / (pw - 2 * MARGIN - OVERLAP)))
        rows = max(1, math.ceil((height - OVERLAP) / (ph - 2 * MARGIN - OVERLAP)))
        if best is None or cols * rows < best[2] * best[3]:
            best = (pw, ph, cols, rows)
    assert best is not None
    return best


def tiles(drawing: Drawing, paper: str) -> list[tuple[str, Drawing]]:
    """(label, page) for each page, rows from the bottom of the board, columns from its left."""
    pw, ph, cols, rows = tile_layout(drawing.width, drawing.height, paper)
    window_w, window_h = pw - 2 * MARGIN, ph - 2 * MARGIN
    step_x, step_y = window_w - OVERLAP, window_h - OVERLAP
    seams_x = [(i + 1) * step_x + OVERLAP / 2 for i in range(cols - 1)]
    seams_y = [(j + 1) * step_y + OVERLAP / 2 for j in range(rows - 1)]
    pages = []
    for row in range(rows):
        for col in range(cols):
            x0, y0 = col * step_x, row * step_y
            dx, dy = MARGIN - x0, MARGIN - y0
            shapes: list[Shape] = [_moved(s, dx, dy) for s in drawing.shapes]
            # Crosses on every seam that crosses this page, at board positions its neighbour shares.
            for sx in seams_x:
                if x0 <= sx <= x0 + window_w:
                    shapes += _seam(sx + dx, MARGIN, MARGIN + window_h, vertical=True, y_from=y0)
            for sy in seams_y:
                if y0 <= sy <= y0 + window_h:
                    shapes += _seam(sy + dy, MARGIN, MARGIN + window_w, vertical=False, y_from=x0)
            shapes += [  # the margins, blank, over whatever ran into them
                Rect(0, 0, pw, MARGIN, WHITE),
                Rect(0, ph - MARGIN, pw, MARGIN, WHITE),
                Rect(0, 0, MARGIN, ph, WHITE),
                Rect(pw - MARGIN, 0, MARGIN, ph, WHITE),
            ]
            label = f"row {row + 1} of {rows}, column {col + 1} of {cols}"
            note = f"{label} (row 1 at the board's bottom); print at 100 %, no fit to page"
            shapes.append(Text(MARGIN, 3.5, 3.5, note))
            pages.append((label, Drawing(pw, ph, tuple(shapes))))
    return pages


def _moved(shape: Shape, dx: float, dy: float) -> Shape:
    if isinstance(shape, Rect):
        return Rect(shape.x + dx, shape.y + dy, shape.w, shape.h, shape.fill)
    if isinstance(shape, Circle):
        return Circle(shape.cx + dx, shape.cy + dy, shape.r, shape.stroke, shape.width, shape.fill)
    if isinstance(shape, Line):
        return Line(shape.x1 + dx, shape.y1 + dy, shape.x2 + dx, shape.y2 + dy, shape.stroke, shape.width)
    return Text(shape.x + dx, shape.y + dy, shape.size, shape.text, shape.fill)


def _seam(at: float, start: float, end: float, vertical: bool, y_from: float) -> list[Shape]:
    """A dashed trim line along a seam and crosses on it every MARK_EVERY mm of board (the same board positions on
    both pages, whatever part of the seam each page shows)."""
    out: list[Shape] = []
    pos = start
    while pos < end:  # dashes 3 mm on, 3 mm off
        a, b = pos, min(pos + 3, end)
        out.append(Line(at, a, at, b, INK, 0.2) if vertical else Line(a, at, b, at, INK, 0.2))
        pos += 6
    first = math.ceil(y_from / MARK_EVERY) * MARK_EVERY - y_from + start
    mark = first
    while mark <= end:
        if vertical:
            out += [
                Line(at - 4, mark, at + 4, mark, INK, 0.3),
                Line(at, mark - 4, at, mark + 4, INK, 0.3),
                Circle(at, mark, 2.0, INK, 0.3),
            ]
        else:
            out += [
                Line(mark - 4, at, mark + 4, at, INK, 0.3),
                Line(mark, at - 4, mark, at + 4, INK, 0.3),
                Circle(mark, at, 2.0, INK, 0.3),
            ]
        mark += MARK_EVERY
    return out
