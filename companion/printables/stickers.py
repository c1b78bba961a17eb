"""A sheet of piece stickers: one for every piece in the box that carries one, labelled with its kind, at true size."""

from __future__ import annotations

from companion.printables.shapes import INK, WHITE, Circle, Drawing, Line, Rect, Shape, Text, marker_shapes
from companion.sensing.pieces import MARGIN_CELLS, Registry

A4 = (210.0, 297.0)
MARGIN_MM = 12.0
LABEL_MM = 7.0  # room under each sticker for its name


def sticker_sheet(registry: Registry) -> Drawing:
    """The stickers on one A4 sheet (ValueError when they need more: `sticker_sheets`)."""
    sheets = sticker_sheets(registry)
    if len(sheets) > 1:
        raise ValueError("the registry has more stickers than fit on one A4 sheet")
    return sheets[0]


def sticker_sheets(registry: Registry) -> list[Drawing]:
    """Stickers on A4 sheets, one for every piece in the box (as many sheets as they need: Orbital Battle's counters
    fill three): each tag at its kind's size with a one-cell white margin and cut lines (a circle for a piece whose
    registry entry asks for a round label, `label_mm`), its kind's name and id below it (pieces of a kind share their
    sticker)."""
    width, height = A4
    marked = [e for e in registry.entries if e.sticker is not None]
    widest = max([e.sticker_mm * (1 + 2 * MARGIN_CELLS / 6) for e in marked] + [e.label_mm for e in marked])
    cell_w, cell_h = widest + 4, widest + LABEL_MM + 2
    per_row = int((width - 2 * MARGIN_MM) // cell_w)
    rows = int((height - 16 - MARGIN_MM) // cell_h)
    per_sheet = per_row * rows
    pages = [marked[i : i + per_sheet] for i in range(0, len(marked), per_sheet)]
    return [_sheet(registry, page, widest, number, len(pages)) for number, page in enumerate(pages, start=1)]


def _sheet(registry: Registry, marked: list, widest: float, number: int, pages: int) -> Drawing:
    width, height = A4
    cell_w, cell_h = widest + 4, widest + LABEL_MM + 2
    per_row = int((width - 2 * MARGIN_MM) // cell_w)
    sizes = sorted({e.sticker_mm for e in registry.entries if e.sticker is not None})
    page = f" Sheet {number} of {pages}." if pages > 1 else ""
    shapes: list[Shape] = [Rect(0, 0, width, height, WHITE)]
    shapes.append(
        Text(
            MARGIN_MM,
            height - 8,
            4,
            f"Orrery piece stickers ({registry.game}): {registry.dictionary}, "
            f"{' and '.join(f'{s:g}' for s in sizes)} mm. Print at 100% scale."
            f"{page}",
        )
    )
    for index, entry in enumerate(marked):
        col, row = index % per_row, index // per_row
        cx = MARGIN_MM + col * cell_w + cell_w / 2
        cy = height - 16 - row * cell_h - widest / 2
        tag = entry.sticker_mm
        quiet = tag * MARGIN_CELLS / 6  # cells of a 16h5 tag (4 bits + 2 border cells)
        shapes.extend(marker_shapes(registry.dictionary, entry.sticker, cx, cy, tag, quiet))
        half = tag / 2 + quiet
        if entry.label_mm:
            half = entry.label_mm / 2
            shapes.append(Circle(cx, cy, half, INK, 0.1))  # the round label's cut line (it trims the margin's corners)
        else:
            for x1, y1, x2, y2 in (
                (-half, -half, half, -half),
                (half, -half, half, half),
                (half, half, -half, half),
                (-half, half, -half, -half),
            ):
                shapes.append(Line(cx + x1, cy + y1, cx + x2, cy + y2, INK, 0.1))  # cut line
        shapes.append(Text(cx - cell_w / 2 + 1, cy - widest / 2 - 3.5, 2.2, f"{entry.piece} #{entry.sticker}"))
    return Drawing(width, height, tuple(shapes))
