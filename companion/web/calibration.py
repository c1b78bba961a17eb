"""The calibration view's camera snapshot: a frame with what the vision pipeline found drawn on it. (The reed grid's
walk-through is companion/table/grid_walk.py, served by guides.py.)"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.sensing.vision import FrameReport, Vision

GREEN, RED, AMBER, GREY = (90, 210, 90), (60, 60, 235), (40, 190, 250), (170, 170, 170)  # BGR


@dataclass
class CameraFeed:
    """Where the table's frames come from (the table's camera) and the pipeline that reads them, which follows the
    board in play (`use`)."""

    frame: Callable[[], np.ndarray]
    vision: Vision
    lock: threading.Lock = field(default_factory=threading.Lock)  # the pipeline keeps a pose: one frame at a time

    def use(self, vision: Vision) -> None:
        """Read another board from now on (a game on another board), after the frame being read, if any."""
        with self.lock:
            self.vision = vision


def annotate(image: np.ndarray, report: FrameReport, vision: Vision) -> np.ndarray:
    """The frame with the board's sites (grey), each piece found (green, named) and what the frame could not vouch
    for (red), projected with the pose the pipeline found."""
    out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)  # a Pi camera's luma
    pose = vision.pose
    if pose is None:
        cv2.putText(out, f"no board pose: {report.reason}", (12, 32), cv2.FONT_HERSHEY_SIMPLEX, 0.8, RED, 2)
        return out

    def pixels(points: list[tuple[float, float, float]]) -> np.ndarray:
        if not points:  # a board with no piece on it yet (Orbital Battle before the first purchase)
            return np.zeros((0, 2), int)
        return pose.project(np.array(points, np.float64), vision.matrix, vision.dist).round().astype(int)

    for x, y in pixels([(s.x, s.y, 0.0) for s in vision.board.sites]):
        cv2.circle(out, (int(x), int(y)), 6, GREY, 1, cv2.LINE_AA)
    for region in report.unreliable:
        polygon = pixels([(px, py, 0.0) for px, py in region.polygon])
        cv2.polylines(out, [polygon.reshape(-1, 1, 2)], True, RED, 2, cv2.LINE_AA)
    for sighting, (x, y) in zip(report.sightings, pixels([(s.x, s.y, 0.0) for s in report.sightings]), strict=True):
        colour = GREEN if sighting.site is not None else AMBER
        cv2.rectangle(out, (int(x) - 12, int(y) - 12), (int(x) + 12, int(y) + 12), colour, 2, cv2.LINE_AA)
        cv2.putText(
            out, sighting.piece, (int(x) + 14, int(y) - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1, cv2.LINE_AA
        )
    status = f"{len(report.sightings)} pieces, markers {list(report.markers)}" if report.reliable else report.reason
    cv2.putText(out, status, (12, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.7, GREEN if report.reliable else RED, 2)
    return out


def snapshot_jpeg(feed: CameraFeed, width: int = 960) -> bytes:
    """One frame, read by the pipeline, annotated, scaled to `width` and JPEG-encoded for the page."""
    with feed.lock:
        image = feed.frame()
        report = feed.vision.process(image)
        drawn = annotate(image, report, feed.vision)
    if drawn.shape[1] > width:
        drawn = cv2.resize(drawn, (width, round(drawn.shape[0] * width / drawn.shape[1])), interpolation=cv2.INTER_AREA)
    ok, encoded = cv2.imencode(".jpg", drawn, [cv2.IMWRITE_JPEG_QUALITY, 80])
    if not ok:
        raise RuntimeError("could not encode the snapshot")
    return encoded.tobytes()
