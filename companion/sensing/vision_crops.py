"""Crops of a big frame (12 MP) around the sites that changed: where to decode, and one reading per sticker.

A settled change touches a site or two; decoding the whole 12 MP frame for it costs several times what the change
is worth. Each site's crop is the box round the pixels a sticker of a piece on it may reach; crops that overlap are
merged, so a sticker on the edge between two sites is decoded whole once, not cut in two.

A camera that sends JPEGs (a phone) costs more to decode whole than a change is worth: the table asks it for the
pixels the next reading needs (a CropPlan: the crops round the sites to read and round the corner markers that tell
the board has not moved, and the whole picture shrunk to OVERVIEW_LINES or so for the occlusion check), and reads them
as sent, raw, with nothing to decode (`Composer`). Where pieces are found by colour, the plan names too the boxes of
the picture the colour windows round the same sites are warped from, sent in colour. A table of several boards under
the camera (Orbital Battle's planet maps beside the solar map) is asked for one TablePlan: each board whose sites
changed with a plan of its own, its parts read for it alone, and one shrunk whole for all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

PAD_PX = 6  # a sticker's edge needs a few pixels of its white margin around it to be found
# The shrunk whole picture has at least this many lines: the occlusion check's 4 mm cells were measured on a quarter of
# a 1080p frame (270 lines); a 12 MP picture shrunk an eighth a side (375 lines) sends a quarter of the bytes of a
# quarter.
OVERVIEW_LINES = 360
# The most a plan asks a camera to send (its colour parts take three bytes a pixel): well under the web's limit on a
# picture's body (companion/web/phone_camera.py FRAME_BYTES, 24 MB).
PLAN_BYTES = 16 * 1024 * 1024

Box = tuple[int, int, int, int]


class _Parts:
    """What a plan asks the camera to send, from its picture's size and its boxes (gray, then colour)."""

    size: tuple[int, int]
    boxes: tuple[Box, ...]
    colour: tuple[Box, ...]

    @property
    def overview(self) -> tuple[int, int]:
        """The shrunk whole picture's size (width, height): the picture's shrunk a whole number of times a side."""
        shrink = max(1, self.size[1] // OVERVIEW_LINES)
        return self.size[0] // shrink, self.size[1] // shrink

    def nbytes(self) -> int:
        """What the camera sends for it: one gray byte a pixel, the overview then each box, row by row; then three
        bytes a pixel for each colour box."""
        width, height = self.overview
        return width * height + _area(self.boxes) + 3 * _area(self.colour)


@dataclass(frozen=True)
class CropPlan(_Parts):
    """What the next frame is read from when the camera sends only part of its picture: the sites to read, where the
    slow sweep goes on from after them, the picture's size (width, height) and the boxes (x0, y0, x1, y1) to send,
    which cover every pixel the reading takes (the sites' crops and the corner markers' looks), for the board
    named; `colour`: boxes sent in colour (three bytes a pixel, blue, green, red), where pieces are found by colour
    round the sites read."""

    board: str
    read: frozenset[str]
    sweep: int
    size: tuple[int, int]
    boxes: tuple[Box, ...]
    colour: tuple[Box, ...] = ()


@dataclass(frozen=True)
class TablePlan(_Parts):
    """One plan over several boards in one picture: for each board whose sites changed, its layout prefix and its own
    plan (its sites, its sweep, and the parts read for it: its sites' crops and its own corner markers' looks). The
    camera sends one shrunk whole, then every board's parts in the plans' order (a part two boards share is sent
    twice, the same pixels)."""

    plans: tuple[tuple[str, CropPlan], ...]

    def __post_init__(self) -> None:
        if not self.plans or len({plan.size for _, plan in self.plans}) != 1:
            raise ValueError("a table's plan needs boards' plans, all of one picture")

    @property
    def size(self) -> tuple[int, int]:
        return self.plans[0][1].size

    @property
    def boxes(self) -> tuple[Box, ...]:
        return tuple(box for _, plan in self.plans for box in plan.boxes)

    @property
    def colour(self) -> tuple[Box, ...]:
        return tuple(box for _, plan in self.plans for box in plan.colour)

    @property
    def boards(self) -> tuple[str, ...]:
        return tuple(plan.board for _, plan in self.plans)

    @property
    def read(self) -> frozenset[str]:
        """The layout's site ids read (each board's prefix before its own)."""
        return frozenset(prefix + site for prefix, plan in self.plans for site in plan.read)

    def part(self, board: str) -> CropPlan | None:
        """The board's own plan (None: the board is not read from these parts)."""
        return next((plan for _, plan in self.plans if plan.board == board), None)


Plan = CropPlan | TablePlan


def _area(boxes: tuple[Box, ...]) -> int:
    return sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in boxes)


@dataclass(frozen=True)
class Cropped:
    """A frame that holds only its plan's boxes (zero elsewhere; in colour where the plan has colour boxes, its gray
    boxes gray in every channel), and the whole picture shrunk."""

    plan: Plan
    overview: np.ndarray


class Composer:
    """Frames composed from what a camera sent for a plan, in one frame kept from one to the next: a fresh 12 MP
    frame costs a page fault for each row a crop touches (2-3 ms of a settled change), the kept one only the wiping
    of the last plan's boxes. A frame composed holds until the next is (the table reads each still before it asks for
    the next)."""

    def __init__(self) -> None:
        self._frame: np.ndarray | None = None
        self._boxes: tuple[Box, ...] = ()

    def compose(self, plan: Plan, body: bytes) -> tuple[np.ndarray, Cropped]:
        """The frame at the plan's size with its boxes where they belong (the rest zero) from what the camera sent;
        ValueError when the body is not the plan's length."""
        if len(body) != plan.nbytes():
            raise ValueError(f"{len(body)} bytes where the table asked for {plan.nbytes()}")
        data = np.frombuffer(body, np.uint8)
        width, height = plan.overview
        overview, at = data[: width * height].reshape(height, width), width * height
        frame = self._frame
        shape = (plan.size[1], plan.size[0], 3) if plan.colour else (plan.size[1], plan.size[0])
        if frame is None or frame.shape != shape:
            frame = self._frame = np.zeros(shape, np.uint8)
        else:
            for x0, y0, x1, y1 in self._boxes:
                frame[y0:y1, x0:x1] = 0
        for x0, y0, x1, y1 in plan.boxes:
            size = (x1 - x0) * (y1 - y0)
            part = data[at : at + size].reshape(y1 - y0, x1 - x0)
            frame[y0:y1, x0:x1] = part if frame.ndim == 2 else part[:, :, None]
            at += size
        for x0, y0, x1, y1 in plan.colour:
            size = 3 * (x1 - x0) * (y1 - y0)
            frame[y0:y1, x0:x1] = data[at : at + size].reshape(y1 - y0, x1 - x0, 3)
            at += size
        self._boxes = plan.boxes + plan.colour
        return frame, Cropped(plan, overview)


def compose(plan: Plan, body: bytes) -> tuple[np.ndarray, Cropped]:
    """One frame composed from what a camera sent for a plan, in a frame of its own (Composer.compose)."""
    return Composer().compose(plan, body)


def site_boxes(rings: list[np.ndarray], shape: tuple[int, ...]) -> list[tuple[int, int, int, int]]:
    """Pixel boxes (x0, y0, x1, y1), clipped to the frame, covering each site's reach ring; overlapping ones
    merged."""
    h, w = shape[:2]
    boxes = []
    for px in rings:
        x0, y0 = np.floor(px.min(axis=0)).astype(int) - PAD_PX
        x1, y1 = np.ceil(px.max(axis=0)).astype(int) + PAD_PX
        box = (max(0, int(x0)), max(0, int(y0)), min(w, int(x1)), min(h, int(y1)))
        if box[2] > box[0] and box[3] > box[1]:
            boxes.append(box)
    return merge_boxes(boxes)


def blank_outside(gray: np.ndarray, rings: list[np.ndarray], origin: tuple[int, int]) -> np.ndarray:
    """A copy of a gray crop whose top-left is `origin` in the frame, white (blank paper) wherever no ring's hull
    reaches (`rings`: each ring's frame pixels): a detector searching it finds no square there."""
    import cv2

    x0, y0 = origin
    inside = np.zeros(gray.shape[:2], np.uint8)
    for ring in rings:
        hull = cv2.convexHull(np.round(ring - (x0, y0)).astype(np.int32))
        cv2.fillConvexPoly(inside, hull, 255)
    out = np.full_like(gray, 255)
    cv2.copyTo(gray, inside, out)  # (where the mask is set; numpy's masked copy costs several times as much)
    return out


def merge_boxes(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1) with every two that overlap merged into the box round both, until none overlap."""
    boxes = list(boxes)
    merged = True
    while merged:
        merged = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    boxes[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    del boxes[j]
                    merged = True
                    break
            if merged:
                break
    return boxes


def distinct(found: list[tuple]) -> list[tuple]:
    """One reading per sticker: a sticker decoded in two crops (it lies where they meet) counts once. Each reading
    is a tuple whose second item is the sticker's corners."""
    out: list[tuple] = []
    kept: list[np.ndarray] = []  # their centres
    for reading in found:
        corners = reading[1]
        centre = corners.mean(axis=0)
        side = float(np.linalg.norm(corners[1] - corners[0]))
        if not any(math.dist(centre, other) < side / 2 for other in kept):
            out.append(reading)
            kept.append(centre)
    return out
