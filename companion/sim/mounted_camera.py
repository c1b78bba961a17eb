"""A camera as people really mount one over a table, and what it shoots through: a model of its own.

This module and mounted_render.py are a second, independent model of the camera, written against the world and not
against the pipeline: they take nothing from the vision code nor from the first renderer (render*.py). Only the
things a real table shares with the product come from the project: the board's geometry (its file), the printed
overlay and stickers (printables) and the pieces' shapes and heights (the registry, the box's description).

A mounting is a pinhole with radial distortion anywhere above the board: the board turned any way in the frame,
filling 60-95 % of it (its larger extent), the camera tilted up to 35 degrees off vertical. Conditions are drawn per
frame: white-balance casts, exposure, uneven light, defocus, motion blur, shot and read noise, JPEG 60-90, an arm
reaching in with its shadow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from companion.boards.model import Board
from companion.sim.mounted_scene import Spread


@dataclass(frozen=True)
class Mounting:
    """Intrinsics (px), radial distortion (k1, k2 on normalised coordinates), and the camera's pose: `rotation`
    rows are the camera's x (right), y (down) and z (forward) axes in board mm; `centre` is the lens's position."""

    width: int
    height: int
    f: float
    cx: float
    cy: float
    k1: float
    k2: float
    rotation: tuple[tuple[float, float, float], ...]
    centre: tuple[float, float, float]

    @property
    def rot(self) -> np.ndarray:
        return np.array(self.rotation, np.float64)

    def normalised(self, points: np.ndarray) -> np.ndarray:
        """(x/z, y/z) in the camera's frame for (n, 3) board points."""
        cam = (np.asarray(points, np.float64).reshape(-1, 3) - np.array(self.centre)) @ self.rot.T
        return cam[:, :2] / cam[:, 2:3]

    def project(self, points: np.ndarray) -> np.ndarray:
        """Pixels of board points as the lens bends them."""
        xy = self.normalised(points)
        r2 = np.sum(xy**2, axis=1, keepdims=True)
        xy = xy * (1 + self.k1 * r2 + self.k2 * r2 * r2)
        return np.column_stack([self.f * xy[:, 0] + self.cx, self.f * xy[:, 1] + self.cy])

    def depth(self, points: np.ndarray) -> np.ndarray:
        return (np.asarray(points, np.float64).reshape(-1, 3) - np.array(self.centre)) @ self.rot[2]

    def undistort(self, pixels: np.ndarray) -> np.ndarray:
        """Normalised pinhole coordinates each (distorted) pixel shows: the lens model inverted by iteration."""
        d = (np.asarray(pixels, np.float64).reshape(-1, 2) - (self.cx, self.cy)) / self.f
        xy = d.copy()
        for _ in range(30):
            r2 = np.sum(xy**2, axis=1, keepdims=True)
            xy = d / (1 + self.k1 * r2 + self.k2 * r2 * r2)
        return xy

    def px_per_mm(self, x: float, y: float, z: float = 0.0) -> float:
        """Pixels a millimetre spans at a board point (the mean of the two directions)."""
        p = self.project(np.array([(x - 0.5, y, z), (x + 0.5, y, z), (x, y - 0.5, z), (x, y + 0.5, z)]))
        return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[3] - p[2])) / 2)


def _axis_rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    axis = axis / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


def mount(board: Board | Spread, size: tuple[int, int], fill: float, yaw: float, tilt: float, tilt_towards: float,
          hfov_deg: float, k1: float, k2: float, place: tuple[float, float] = (0.0, 0.0)) -> Mounting:
    """A camera whose frame the board (or the box round a spread of boards) fills to `fill` (its larger extent
    against the frame's side), turned by `yaw` in the frame, tilted `tilt` radians off vertical towards the board
    direction `tilt_towards`; `place` in -1..1 moves the board within the frame's spare room."""
    width, height = size
    f = width / 2 / math.tan(math.radians(hfov_deg) / 2)
    base = np.array([[math.cos(yaw), math.sin(yaw), 0.0], [math.sin(yaw), -math.cos(yaw), 0.0], [0.0, 0.0, -1.0]])
    tilt_axis = np.array([-math.sin(tilt_towards), math.cos(tilt_towards), 0.0])
    rows = base @ _axis_rotation(tilt_axis, tilt).T  # each camera axis turned about the horizontal tilt axis
    corners = np.array([(0, 0, 0), (board.width, 0, 0), (board.width, board.height, 0), (0, board.height, 0)],
                       np.float64)
    corners = np.concatenate([corners, [(board.width / 2, y, 0) for y in (0, board.height)],
                              [(x, board.height / 2, 0) for x in (0, board.width)]])
    target = np.array([board.width / 2, board.height / 2, 0.0])
    distance = 1000.0
    shift = np.zeros(2)  # the lens's offset across its own axes (mm), to put the board where `place` says
    for _ in range(8):
        lo, hi = 50.0, 20000.0
        for _ in range(40):
            distance = (lo + hi) / 2
            cam = _camera(size, f, k1, k2, rows, target - distance * rows[2] + shift @ rows[:2])
            px = cam.project(corners)
            extent = max(np.ptp(px[:, 0]) / width, np.ptp(px[:, 1]) / height)
            lo, hi = (lo, distance) if extent < fill else (distance, hi)
        px = cam.project(corners)
        spare = np.array([width - np.ptp(px[:, 0]), height - np.ptp(px[:, 1])]) / 2
        want = np.array([width / 2, height / 2]) + np.asarray(place) * np.maximum(spare - 2, 0)
        box_centre = (px.min(axis=0) + px.max(axis=0)) / 2
        shift = shift + (box_centre - want) * distance / f
    return cam


def _camera(size: tuple[int, int], f: float, k1: float, k2: float, rows: np.ndarray, centre: np.ndarray) -> Mounting:
    return Mounting(size[0], size[1], f, (size[0] - 1) / 2, (size[1] - 1) / 2, k1, k2,
                    tuple(tuple(float(v) for v in r) for r in rows), tuple(float(v) for v in centre))


def random_mounting(board: Board | Spread, size: tuple[int, int], rng: np.random.Generator,
                    fill: tuple[float, float] = (0.6, 0.95), tilt_deg: float = 35.0) -> Mounting:
    """A camera as someone might mount it: any turn, fill and tilt in range, a webcam-to-wide lens."""
    fill_, yaw = float(rng.uniform(*fill)), float(rng.uniform(0, 2 * math.pi))
    tilt, towards = math.radians(float(rng.uniform(0, tilt_deg))), float(rng.uniform(0, 2 * math.pi))
    hfov = float(rng.uniform(55, 80))
    # A real lens bends the picture monotonically out to its corners: draw its distortion until it does (the
    # radial model turns back on itself beyond some radius when k1 is strong and k2 weak).
    corner = math.hypot(1.0, size[1] / size[0]) * math.tan(math.radians(hfov) / 2)
    r = np.linspace(0.0, 1.6 * corner, 200)
    for _ in range(50):
        k1, k2 = float(rng.uniform(-0.3, 0.0)), float(rng.uniform(0.0, 0.08))
        if np.all(1 + 3 * k1 * r**2 + 5 * k2 * r**4 > 0.1):
            break
    else:
        k1 = k2 = 0.0
    return mount(board, size, fill_, yaw, tilt, towards, hfov, k1, k2, tuple(rng.uniform(-1, 1, 2)))


@dataclass(frozen=True)
class Shot:
    """What spoils one frame. Lengths in pixels are for a 1080-line frame and scale with the frame's height."""

    name: str
    white_balance: tuple[float, float, float]  # gains on B, G, R
    exposure: float
    light_slope: float  # brightness falls by this much across the frame, in a random direction
    vignette: float
    defocus_px: float  # radius of the blur disc
    motion_px: float  # length of the smear
    motion_angle: float
    shot_noise: float  # variance per unit of signal (DN)
    read_noise: float  # standard deviation (DN)
    jpeg: int
    glare: float  # peak added brightness of a lamp's reflection, 0 for none
    arm: bool
    light_azimuth: float  # where the light comes from (shadows fall away from it)
    light_elevation: float


CONDITIONS = ("normal", "arm", "harsh")


def random_shot(name: str, rng: np.random.Generator) -> Shot:
    """Conditions for one frame: 'normal' (a room's ordinary light and an auto-exposing camera), 'arm' (the same with
    an arm over the board) or 'harsh' (dim, casts, blur and noise, a glare spot, an arm half the time)."""
    if name not in CONDITIONS:
        raise ValueError(f"unknown conditions {name!r}")
    harsh = name == "harsh"
    cast = float(rng.uniform(-0.45, 0.45) if harsh else rng.uniform(-0.28, 0.28))  # warm (+) or cool (-)
    tint = float(rng.uniform(-0.08, 0.08))
    wb = (math.exp(-cast / 2), math.exp(tint), math.exp(cast / 2))
    return Shot(
        name, wb,
        exposure=float(rng.uniform(0.5, 1.15) if harsh else rng.uniform(0.75, 1.1)),
        light_slope=float(rng.uniform(0.2, 0.5) if harsh else rng.uniform(0.0, 0.3)),
        vignette=float(rng.uniform(0.1, 0.4) if harsh else rng.uniform(0.0, 0.25)),
        defocus_px=float(rng.uniform(0.6, 2.0) if harsh else rng.uniform(0.0, 1.0)),
        motion_px=float(rng.uniform(0.0, 3.0) if harsh else rng.uniform(0.0, 1.0)),
        motion_angle=float(rng.uniform(0, math.pi)),
        shot_noise=float(rng.uniform(0.6, 1.5) if harsh else rng.uniform(0.15, 0.6)),
        read_noise=float(rng.uniform(2.0, 5.0) if harsh else rng.uniform(0.8, 2.5)),
        jpeg=int(rng.integers(60, 76) if harsh else rng.integers(60, 91)),
        glare=float(rng.uniform(60, 140)) if harsh else 0.0,
        arm=name == "arm" or (harsh and bool(rng.random() < 0.5)),
        light_azimuth=float(rng.uniform(0, 2 * math.pi)),
        light_elevation=math.radians(float(rng.uniform(45, 80))),
    )
