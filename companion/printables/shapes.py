"""Drawings in millimetres (origin bottom-left, y up), written as true-scale SVG or rasterised for the renderer.

One drawing feeds both the printer and the rendered camera, so what the simulated camera sees is what gets printed.
"""

from __future__ import annotations

from dataclasses import dataclass
from xml.sax.saxutils import escape

import cv2
import numpy as np

Colour = tuple[int, int, int]  # r, g, b

PAPER: Colour = (238, 236, 228)
INK: Colour = (40, 40, 48)
WHITE: Colour = (255, 255, 255)
BLACK: Colour = (0, 0, 0)


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    fill: Colour


@dataclass(frozen=True)
class Circle:
    cx: float
    cy: float
    r: float
    stroke: Colour | None = INK
    width: float = 0.5
    fill: Colour | None = None


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    stroke: Colour = INK
    width: float = 0.3


@dataclass(frozen=True)
class Text:
    x: float
    y: float
    size: float
    text: str
    fill: Colour = INK


Shape = Rect | Circle | Line | Text


@dataclass(frozen=True)
class Drawing:
    width: float
    height: float
    shapes: tuple[Shape, ...]


def marker_cells(dictionary: str, marker_id: int) -> np.ndarray:
    """The marker's cells, border included, as a (n, n) array of 0 (black) and 1 (white); row 0 is the top."""
    aruco_dict = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    n = aruco_dict.markerSize + 2
    image = cv2.aruco.generateImageMarker(aruco_dict, marker_id, n, borderBits=1)
    return (image > 127).astype(np.uint8)


def marker_shapes(dictionary: str, marker_id: int, cx: float, cy: float, size: float, quiet: float) -> list[Shape]:
    """A marker of side `size` centred at (cx, cy), upright (its top towards +y), in a white quiet zone."""
    cells = marker_cells(dictionary, marker_id)
    n = cells.shape[0]
    cell = size / n
    outer = size + 2 * quiet
    shapes: list[Shape] = [Rect(cx - outer / 2, cy - outer / 2, outer, outer, WHITE)]
    top = cy + size / 2
    for row in range(n):
        for col in range(n):
            if not cells[row, col]:
                shapes.append(Rect(cx - size / 2 + col * cell, top - (row + 1) * cell, cell, cell, BLACK))
    return shapes


def _hex(colour: Colour) -> str:
    return "#{:02x}{:02x}{:02x}".format(*colour)


def to_svg(drawing: Drawing) -> str:
    """True-scale SVG: the document's width and height are in mm and one user unit is one mm."""
    h = drawing.height
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{drawing.width:g}mm" height="{drawing.height:g}mm" '
        f'viewBox="0 0 {drawing.width:g} {drawing.height:g}">',
    ]
    for s in drawing.shapes:
        if isinstance(s, Rect):
            out.append(
                f'<rect x="{s.x:.3f}" y="{h - s.y - s.h:.3f}" width="{s.w:.3f}" height="{s.h:.3f}" '
                f'fill="{_hex(s.fill)}" shape-rendering="crispEdges"/>'
            )
        elif isinstance(s, Circle):
            fill = _hex(s.fill) if s.fill else "none"
            stroke = f'stroke="{_hex(s.stroke)}" stroke-width="{s.width:g}"' if s.stroke else 'stroke="none"'
            out.append(f'<circle cx="{s.cx:.3f}" cy="{h - s.cy:.3f}" r="{s.r:.3f}" fill="{fill}" {stroke}/>')
        elif isinstance(s, Line):
            out.append(
                f'<line x1="{s.x1:.3f}" y1="{h - s.y1:.3f}" x2="{s.x2:.3f}" y2="{h - s.y2:.3f}" '
                f'stroke="{_hex(s.stroke)}" stroke-width="{s.width:g}"/>'
            )
        else:
            out.append(
                f'<text x="{s.x:.3f}" y="{h - s.y:.3f}" font-size="{s.size:g}" font-family="sans-serif" '
                f'fill="{_hex(s.fill)}">{escape(s.text)}</text>'
            )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def rasterise(drawing: Drawing, px_per_mm: float) -> np.ndarray:
    """A BGR image of the drawing, row 0 at the top (y = height); text is left out (the camera cannot read it)."""
    width, height = round(drawing.width * px_per_mm), round(drawing.height * px_per_mm)
    image = np.zeros((height, width, 3), np.uint8)
    shift = 4  # sub-pixel precision for cv2 drawing
    scale = px_per_mm * (1 << shift)

    def pt(x: float, y: float) -> tuple[int, int]:
        return round(x * scale), round((drawing.height - y) * scale)

    for s in drawing.shapes:
        if isinstance(s, Rect):
            corners = np.array([pt(s.x, s.y), pt(s.x + s.w, s.y), pt(s.x + s.w, s.y + s.h), pt(s.x, s.y + s.h)])
            cv2.fillConvexPoly(image, corners, s.fill[::-1], cv2.LINE_AA, shift)
        elif isinstance(s, Circle):
            r = round(s.r * scale)
            if s.fill:
                cv2.circle(image, pt(s.cx, s.cy), r, s.fill[::-1], -1, cv2.LINE_AA, shift)
            if s.stroke:
                thickness = max(1, round(s.width * px_per_mm))
                cv2.circle(image, pt(s.cx, s.cy), r, s.stroke[::-1], thickness, cv2.LINE_AA, shift)
        elif isinstance(s, Line):
            thickness = max(1, round(s.width * px_per_mm))
            cv2.line(image, pt(s.x1, s.y1), pt(s.x2, s.y2), s.stroke[::-1], thickness, cv2.LINE_AA, shift)
    return image
