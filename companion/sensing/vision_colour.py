"""Pieces without stickers, told apart by colour alone: a top-down view of the board, HSV thresholds per colour
(from `companion calibrate colours`), an opening to drop specks and contour area limits from the piece's footprint.

Colour says less than a sticker (two pieces of one colour look alike, light shifts hues), so these sightings carry
a lower confidence.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass

import cv2
import numpy as np

from companion.boards.model import Board
from companion.sensing.pieces import PieceEntry, Registry
from companion.sensing.vision_crops import merge_boxes
from companion.sensing.vision_pose import Pose
from companion.sensing.vision_profile import CameraProfile, ColourRange

PX_PER_MM = 1.0  # top-down scale: pieces are 20-56 mm across, plenty at 1 px/mm
GRID_MM = 10.0  # the lens is smooth: project a coarse grid and interpolate the warp between its points
AREA_LIMITS = (0.5, 1.6)  # blob area over the top face's area: smaller is a speck or half-hidden, larger a merge
COLOUR_CONFIDENCE = 0.6  # the best a colour sighting gets (stickers reach 1.0)


@dataclass(frozen=True)
class ColourBlob:
    colour: str
    x: float  # board mm
    y: float
    area_ratio: float  # blob area over the expected top face area


def polygon_area(entry: PieceEntry) -> float:
    """The top face's area in mm² (a regular polygon of the entry's circumradius)."""
    n = entry.sides
    return 0.5 * n * entry.radius**2 * math.sin(2 * math.pi / n)


def in_range(hsv: np.ndarray, colour: ColourRange) -> np.ndarray:
    """The mask of pixels inside an HSV range; a low hue above the high hue wraps around red."""
    low, high = np.array(colour.low, np.uint8), np.array(colour.high, np.uint8)
    if colour.low[0] <= colour.high[0]:
        return cv2.inRange(hsv, low, high)
    upper = cv2.inRange(hsv, low, np.array([179, high[1], high[2]], np.uint8))
    lower = cv2.inRange(hsv, np.array([0, low[1], low[2]], np.uint8), high)
    return cv2.bitwise_or(upper, lower)


def top_down(
    image: np.ndarray,
    board: Board,
    pose: Pose,
    matrix: np.ndarray,
    dist: np.ndarray,
    height_mm: float,
    window: tuple[int, int, int, int] | None = None,
) -> np.ndarray:
    """The board seen from straight above at the plane z = height_mm (the tops of pieces that tall).

    Pixel (col, row) shows board point ((col + 0.5) / PX_PER_MM, board.height - (row + 0.5) / PX_PER_MM).
    `window`: (col0, row0, col1, row1), only that part of the view, its pixels the same as in the whole view when
    col0 and row0 are multiples of the warp grid's step (`align`).
    """
    c0, r0, c1, r1 = window or (0, 0, round(board.width * PX_PER_MM), round(board.height * PX_PER_MM))
    cols, rows = c1 - c0, r1 - r0
    grid = _warp_grid(board, pose, matrix, dist, height_mm, (c0, r0, c1, r1)).astype(np.float32)
    # Top-down pixel (col, row) lies (col + 0.5) / PX_PER_MM / GRID_MM grid steps along: interpolate the grid there.
    steps_x = ((np.arange(cols, dtype=np.float32) + 0.5) / (PX_PER_MM * GRID_MM))[None, :].repeat(rows, axis=0)
    steps_y = ((np.arange(rows, dtype=np.float32) + 0.5) / (PX_PER_MM * GRID_MM))[:, None].repeat(cols, axis=1)
    map_xy = cv2.remap(grid, steps_x, steps_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return cv2.remap(image, map_xy[..., 0], map_xy[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)


def _warp_grid(
    board: Board, pose: Pose, matrix: np.ndarray, dist: np.ndarray, height_mm: float, window: tuple[int, int, int, int]
) -> np.ndarray:
    """The frame pixels (rows, cols, 2) of the warp grid's points over a top-down window at z = height_mm: the
    frame's part the window is warped from lies within them, give or take the interpolation's pixel."""
    c0, r0, c1, r1 = window
    gx = c0 / PX_PER_MM + np.arange(0, (c1 - c0) / PX_PER_MM + GRID_MM, GRID_MM)
    gy = board.height - r0 / PX_PER_MM - np.arange(0, (r1 - r0) / PX_PER_MM + GRID_MM, GRID_MM)
    xx, yy = np.meshgrid(gx, gy)
    points = np.column_stack([xx.ravel(), yy.ravel(), np.full(xx.size, height_mm)])
    return pose.project(points, matrix, dist).reshape(len(gy), len(gx), 2)


def window_pixels(
    board: Board,
    pose: Pose,
    matrix: np.ndarray,
    dist: np.ndarray,
    heights: Collection[float],
    window: tuple[int, int, int, int],
) -> np.ndarray:
    """The frame pixels (n, 2) that bound the part of the frame a top-down window is warped from, at each of the
    `heights` its pieces' tops are looked for at."""
    return np.concatenate([_warp_grid(board, pose, matrix, dist, h, window).reshape(-1, 2) for h in heights])


def windows_around(board: Board, points: list[tuple[float, float]], reach_mm: float) -> list[tuple[int, int, int, int]]:
    """Top-down windows (col0, row0, col1, row1) covering `reach_mm` round each board point, on the warp grid's
    steps (so their pixels are the whole view's), clipped to the board; overlapping ones merged."""
    step = round(GRID_MM * PX_PER_MM)
    cols, rows = round(board.width * PX_PER_MM), round(board.height * PX_PER_MM)
    boxes = []
    for x, y in points:
        col, row = x * PX_PER_MM, (board.height - y) * PX_PER_MM
        r = reach_mm * PX_PER_MM
        c0, r0 = max(0, math.floor((col - r) / step) * step), max(0, math.floor((row - r) / step) * step)
        c1, r1 = min(cols, math.ceil((col + r) / step) * step), min(rows, math.ceil((row + r) / step) * step)
        if c1 > c0 and r1 > r0:
            boxes.append((c0, r0, c1, r1))
    return merge_boxes(boxes)


def to_board_mm(board: Board, col: float, row: float) -> tuple[float, float]:
    return (col + 0.5) / PX_PER_MM, board.height - (row + 0.5) / PX_PER_MM


class ColourFinder:
    """Finds the registry's unmarked pieces by the colour ranges of a camera profile."""

    def __init__(self, board: Board, registry: Registry, profile: CameraProfile) -> None:
        self.board = board
        # A colour several kinds share (ORBIT's station tiles) cannot say which piece a blob is: not looked for.
        self.groups: dict[str, list[PieceEntry]] = registry.by_colour(profile.colours)
        self.ranges = {c: profile.colours[c] for c in self.groups}
        # One warp per piece height: a piece's top is found where it really is, not displaced by parallax.
        self.heights = {c: float(np.median([e.height for e in group])) for c, group in self.groups.items()}

    def __bool__(self) -> bool:
        return bool(self.groups)

    def margin_mm(self) -> float:
        """How far from its centre a piece found by colour may reach, with the opening's reach past it: a window
        this much wider than where a piece's centre may be holds it whole."""
        return max(e.radius + (self._opening_px(c) + 1) / PX_PER_MM for c, group in self.groups.items() for e in group)

    def _opening_px(self, colour: str) -> int:
        smallest = min(e.radius * math.cos(math.pi / e.sides) for e in self.groups[colour]) * PX_PER_MM
        return max(3, int(smallest * 0.6) | 1)  # opens away specks and thin print lines, keeps the piece

    def blobs(
        self,
        image: np.ndarray,
        pose: Pose,
        matrix: np.ndarray,
        dist: np.ndarray,
        windows: list[tuple[int, int, int, int]] | None = None,
    ) -> list[ColourBlob]:
        """The blobs of every colour over the whole board, or within top-down `windows` (`windows_around`): a blob
        that comes within the opening's reach of a window's edge inside the board may be cut or shaped by that
        edge, so it is left to a window that holds it whole (the same blobs as the whole board then)."""
        full = (0, 0, round(self.board.width * PX_PER_MM), round(self.board.height * PX_PER_MM))
        out: list[ColourBlob] = []
        for window in windows if windows is not None else [full]:
            out.extend(self._window_blobs(image, pose, matrix, dist, window, full))
        return out

    def _window_blobs(
        self,
        image: np.ndarray,
        pose: Pose,
        matrix: np.ndarray,
        dist: np.ndarray,
        window: tuple[int, int, int, int],
        full: tuple[int, int, int, int],
    ) -> list[ColourBlob]:
        out: list[ColourBlob] = []
        c0, r0, c1, r1 = window
        views: dict[float, np.ndarray] = {}
        for colour, group in self.groups.items():
            height = self.heights[colour]
            if height not in views:
                views[height] = cv2.cvtColor(
                    top_down(image, self.board, pose, matrix, dist, height, window), cv2.COLOR_BGR2HSV
                )
            mask = in_range(views[height], self.ranges[colour])
            size = self._opening_px(colour)
            mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)))
            expected = float(np.mean([polygon_area(e) for e in group])) * PX_PER_MM**2
            # Edges of the window inside the board: how close a blob may come to each (left, top, right, bottom).
            inner = [c0 > full[0], r0 > full[1], c1 < full[2], r1 < full[3]]
            contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            for contour in contours:
                x, y, w, h = cv2.boundingRect(contour)
                gaps = (x, y, (c1 - c0) - (x + w), (r1 - r0) - (y + h))
                if any(edge and gap <= size for edge, gap in zip(inner, gaps, strict=True)):
                    continue
                ratio = cv2.contourArea(contour) / expected
                if not AREA_LIMITS[0] <= ratio <= AREA_LIMITS[1]:
                    continue
                m = cv2.moments(contour)
                bx, by = to_board_mm(self.board, c0 + m["m10"] / m["m00"], r0 + m["m01"] / m["m00"])
                out.append(ColourBlob(colour, bx, by, ratio))
        return out
