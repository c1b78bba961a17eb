"""The ChArUco target the camera is calibrated with: its geometry is fixed here so print and calibration agree."""

from __future__ import annotations

import cv2
import numpy as np

from companion.printables.shapes import BLACK, WHITE, Drawing, Rect, Shape, Text, marker_shapes

SQUARES = (7, 5)  # columns, rows: fits landscape A4 with margins
SQUARE_MM = 30.0
MARKER_MM = 22.0
DICTIONARY = "DICT_5X5_100"
MARGIN_MM = 20.0


def charuco_board() -> cv2.aruco.CharucoBoard:
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, DICTIONARY))
    return cv2.aruco.CharucoBoard(SQUARES, SQUARE_MM, MARKER_MM, dictionary)


def charuco_drawing() -> Drawing:
    """The target with a white margin, chess squares and markers as vector shapes; OpenCV's layout (y down)."""
    board = charuco_board()
    cols, rows = SQUARES
    width, height = cols * SQUARE_MM + 2 * MARGIN_MM, rows * SQUARE_MM + 2 * MARGIN_MM
    shapes: list[Shape] = [Rect(0, 0, width, height, WHITE)]
    marked = set()
    for corners, marker_id in zip(board.getObjPoints(), board.getIds().ravel(), strict=True):
        cx, cy = np.asarray(corners)[:, :2].mean(axis=0)
        marked.add((int(cx // SQUARE_MM), int(cy // SQUARE_MM)))
        # board y grows downwards from the top edge; drawings have y up
        shapes.extend(marker_shapes(DICTIONARY, int(marker_id), MARGIN_MM + cx, height - MARGIN_MM - cy, MARKER_MM, 0))
    for row in range(rows):
        for col in range(cols):
            if (col, row) not in marked:
                shapes.append(
                    Rect(
                        MARGIN_MM + col * SQUARE_MM,
                        height - MARGIN_MM - (row + 1) * SQUARE_MM,
                        SQUARE_MM,
                        SQUARE_MM,
                        BLACK,
                    )
                )
    shapes.append(
        Text(
            MARGIN_MM,
            8,
            4,
            f"Orrery camera target: ChArUco {cols}x{rows}, squares {SQUARE_MM:g} mm, "
            f"markers {MARKER_MM:g} mm {DICTIONARY}. Measure a square: it must be "
            f"{SQUARE_MM:g} mm.",
        )
    )
    return Drawing(width, height, tuple(shapes))
