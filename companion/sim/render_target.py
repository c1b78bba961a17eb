"""The rendered camera photographing the ChArUco calibration target held at a seeded pose (to test calibration)."""

from __future__ import annotations

import functools
import math
from dataclasses import replace

import cv2
import numpy as np

from companion.calibration.charuco import MARGIN_MM, SQUARE_MM, SQUARES, charuco_drawing
from companion.printables.shapes import rasterise
from companion.sim.render import spoil
from companion.sim.render_camera import NORMAL, Conditions, SimCamera

PX_PER_MM = 4


@functools.lru_cache(maxsize=1)
def _texture() -> np.ndarray:
    return rasterise(charuco_drawing(), PX_PER_MM)


def target_view(camera: SimCamera, seed: int, distance_mm: float = 450.0, tilt_deg: float = 35.0) -> SimCamera:
    """The camera with the target's pose: the target (OpenCV board frame, y down) tilted and off-centre."""
    rng = np.random.default_rng(seed)
    cols, rows = SQUARES
    middle = np.array([cols * SQUARE_MM / 2, rows * SQUARE_MM / 2, 0.0])
    tilt = np.radians(rng.uniform(-tilt_deg, tilt_deg, 2))
    rot, _ = cv2.Rodrigues(np.array([tilt[0], tilt[1], rng.uniform(-math.pi, math.pi) * 0.25]))
    # Off-centre so the lens edges (where distortion shows) get seen too.
    spread = distance_mm * np.array([camera.width, camera.height]) / (2 * camera.fx) * 0.6
    offset = np.array([*rng.uniform(-spread, spread), distance_mm * rng.uniform(0.9, 1.2)])
    tvec = offset - rot @ middle
    rvec, _ = cv2.Rodrigues(rot)
    return replace(camera, rvec=tuple(rvec.ravel()), tvec=tuple(tvec.ravel()))


def render_target(camera: SimCamera, seed: int, conditions: Conditions = NORMAL) -> np.ndarray:
    """The target as `camera` (posed by `target_view`) sees it, through the lens, lit and compressed."""
    rng = np.random.default_rng(seed + 104729)
    texture = _texture()
    rot, _ = cv2.Rodrigues(np.array(camera.rvec))
    plane = camera.matrix @ np.column_stack([rot[:, 0], rot[:, 1], np.array(camera.tvec)])
    # texture pixel -> target mm (the board frame starts inside the white margin)
    to_board = np.array(
        [[1 / PX_PER_MM, 0, 0.5 / PX_PER_MM - MARGIN_MM], [0, 1 / PX_PER_MM, 0.5 / PX_PER_MM - MARGIN_MM], [0, 0, 1]]
    )
    table = np.full((camera.height, camera.width, 3), rng.uniform(70, 130), np.uint8)
    ideal = cv2.warpPerspective(
        texture, plane @ to_board, (camera.width, camera.height), table, cv2.INTER_AREA, cv2.BORDER_TRANSPARENT
    )
    map_x, map_y = _lens_maps(camera.width, camera.height, camera.fx, camera.fy, camera.cx, camera.cy, camera.dist)
    image = cv2.remap(ideal, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return spoil(image, conditions, rng)


@functools.lru_cache(maxsize=4)
def _lens_maps(
    width: int, height: int, fx: float, fy: float, cx: float, cy: float, dist: tuple[float, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """For every distorted pixel, the ideal pixel it shows."""
    matrix = np.array([[fx, 0, cx], [0, fy, cy], [0, 0, 1]], np.float64)
    xs, ys = np.meshgrid(np.arange(width, dtype=np.float32), np.arange(height, dtype=np.float32))
    pts = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2)
    ideal = cv2.undistortPoints(
        pts,
        matrix,
        np.array(dist, np.float64),
        None,
        None,
        matrix,
        (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 20, 1e-4),
    ).reshape(height, width, 2)
    return ideal[..., 0].copy(), ideal[..., 1].copy()
