"""Flattening a photo of a board: the four corners a person dragged onto the photo become the board's rectangle,
seen from straight above, at a scale the editor draws sites on (OpenCV's perspective transform)."""

from __future__ import annotations

import cv2
import numpy as np

from companion.web.pictures import PictureError, decode

LONG_SIDE_PX = 1000  # the flattened picture's longer side: enough to place sites, small for a phone
PHOTO_PX = 4000  # the largest photo side the table takes (the page scales photos down before sending)


class PhotoError(PictureError):
    """A photo or corners that cannot be flattened; the message says which and why."""


def parse_corners(text: str) -> list[tuple[float, float]]:
    """Eight numbers "x,y,..." (top-left, top-right, bottom-right, bottom-left, in photo pixels)."""
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise PhotoError("corners: expected eight numbers, x,y for each corner") from None
    if len(values) != 8 or not all(np.isfinite(values)):
        raise PhotoError("corners: expected eight numbers, x,y for each corner")
    return [(values[i], values[i + 1]) for i in range(0, 8, 2)]


def flatten(photo: bytes, corners: list[tuple[float, float]], width_mm: float, height_mm: float) -> bytes:
    """The board's rectangle of the photo as a JPEG, its corners where the board's are (top-left first)."""
    if not (0 < width_mm <= 5000 and 0 < height_mm <= 5000):
        raise PhotoError("width and height: the board's size in millimetres, above 0 and at most 5000")
    image = decode(photo, PHOTO_PX, "photo")
    rows, cols = image.shape[:2]
    source = np.array(corners, np.float32)
    if abs(cv2.contourArea(source)) < 0.01 * rows * cols:
        raise PhotoError("corners: they enclose almost nothing; drag each to a corner of the board")
    scale = LONG_SIDE_PX / max(width_mm, height_mm)
    w, h = round(width_mm * scale), round(height_mm * scale)
    target = np.array([(0, 0), (w - 1, 0), (w - 1, h - 1), (0, h - 1)], np.float32)
    matrix = cv2.getPerspectiveTransform(source, target)
    flat = cv2.warpPerspective(image, matrix, (w, h), flags=cv2.INTER_LINEAR)
    ok, encoded = cv2.imencode(".jpg", flat, [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok
    return encoded.tobytes()
