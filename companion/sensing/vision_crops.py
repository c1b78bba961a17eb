"""Crops of a big frame (12 MP) around the sites that changed: where to decode, and one reading per sticker.

A settled change touches a site or two; decoding the whole 12 MP frame for it costs several times what the change
is worth. Each site's crop is the box round the pixels a sticker of a piece on it may reach; crops that overlap are
merged, so a sticker on the edge between two sites is decoded whole once, not cut in two.
"""

from __future__ import annotations

import math

import numpy as np

PAD_PX = 6  # a sticker's edge needs a few pixels of its white margin around it to be found


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
    for reading in found:
        corners = reading[1]
        centre = corners.mean(axis=0)
        side = float(np.linalg.norm(corners[1] - corners[0]))
        if not any(math.dist(centre, other[1].mean(axis=0)) < side / 2 for other in out):
            out.append(reading)
    return out
