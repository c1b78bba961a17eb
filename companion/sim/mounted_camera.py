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


def mount(
    board: Board | Spread,
    size: tuple[int, int],
    fill: float,
    yaw: float,
    tilt: float,
    tilt_towards: float,
    hfov_deg: float,
    k1: float,
    k2: float,
    place: tuple[float, float] = (0.0, 0.0),
) -> Mounting:
    """A camera whose frame the board (or the box round a spread of boards) fills to `fill` (its larger extent
    against the frame's side), turned by `yaw` in the frame, tilted `tilt` radians off vertical towards the board
    direction `tilt_towards`; `place` in -1..1 moves the board within the frame's spare room."""
    width, height = size
    f = width / 2 / math.tan(math.radians(hfov_deg) / 2)
    base = np.array([[math.cos(yaw), math.sin(yaw), 0.0], [math.sin(yaw), -math.cos(yaw), 0.0], [0.0, 0.0, -1.0]])
    tilt_axis = np.array([-math.sin(tilt_towards), math.cos(tilt_towards), 0.0])
    rows = base @ _axis_rotation(tilt_axis, tilt).T  # each camera axis turned about the horizontal tilt axis
    corners = np.array(
        [(0, 0, 0), (board.width, 0, 0), (board.width, board.height, 0), (0, board.height, 0)], np.float64
    )
    corners = np.concatenate(
        [
            corners,
            [(board.width / 2, y, 0) for y in (0, board.height)],
            [(x, board.height / 2, 0) for x in (0, board.width)],
        ]
    )
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
    return Mounting(
        size[0],
        size[1],
        f,
        (size[0] - 1) / 2,
        (size[1] - 1) / 2,
        k1,
        k2,
        tuple(tuple(float(v) for v in r) for r in rows),
        tuple(float(v) for v in centre),
    )


def random_mounting(
    board: Board | Spread,
    size: tuple[int, int],
    rng: np.random.Generator,
    fill: tuple[float, float] = (0.6, 0.95),
    tilt_deg: float = 35.0,
    tilt_from: float = 0.0,
) -> Mounting:
    """A camera as someone might mount it: any turn, fill and tilt in range (`tilt_from` to `tilt_deg`), a
    webcam-to-wide lens."""
    fill_, yaw = float(rng.uniform(*fill)), float(rng.uniform(0, 2 * math.pi))
    tilt = math.radians(float(rng.uniform(min(tilt_from, tilt_deg), tilt_deg)))
    towards = float(rng.uniform(0, 2 * math.pi))
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
class Optics:
    """One camera as mounted (what stays the same from frame to frame): its kind, its lens's blur as its focus was
    set (a Gaussian's sigma, in the frame's own pixels), the room's light, how its pictures are processed and sent.
    The ranges are WORLD.md's: webcams 720p-1080p with 0.5-1.5 px of lens blur at 1080p and MJPEG 70-90; the Pi
    Camera Module 3 (4608 x 2592, autofocus) and HQ camera (4056 x 3040, focused by hand: 1-2 px at full size), raw
    frames; a phone's video (720p-4K) or full-size still, JPEG; indoor light of 100-500 lux, exposures of
    1/60-1/15 s with the gain making up the rest."""

    kind: str  # "webcam", "pi-module-3", "pi-hq", "phone"
    lens_sigma: float  # px at the frame's size
    lux: float
    longest_exposure: float  # seconds: the auto exposure's limit (1/30 or 1/15)
    sharpen: float  # the camera's own unsharp mask (0: none)
    jpeg: int  # quality of the pictures it sends (0: raw frames, no compression)
    cast: float  # the white balance's warm (+) or cool (-) error in this room
    tint: float
    exposure: float  # the auto exposure's brightness error

    def exposure_time(self, lux: float) -> float:
        return min(self.longest_exposure, max(1 / 60, LIGHT_FOR_GAIN_1 / lux))

    def gain(self, lux: float) -> float:
        return max(1.0, LIGHT_FOR_GAIN_1 / (lux * self.exposure_time(lux)))


LIGHT_FOR_GAIN_1 = 25.0  # lux x seconds that fill a small sensor's pixels without gain (500 lux at 1/20 s)
CAMERAS = ("webcam", "pi-module-3", "pi-hq", "phone")


def camera_for(size: tuple[int, int]) -> str:
    """The kind of camera that gives frames of this size: the Pi cameras' full sensors, webcams up to 1080p (either
    way up: a webcam is landscape), phones otherwise (4K video, 12 MP stills, portrait or landscape)."""
    w, h = sorted(size, reverse=True)
    if (w, h) == (4608, 2592):
        return "pi-module-3"
    if (w, h) == (4056, 3040):
        return "pi-hq"
    return "webcam" if size[0] >= size[1] and h <= 1080 else "phone"


def random_optics(
    kind: str,
    size: tuple[int, int],
    rng: np.random.Generator,
    dim: bool = False,
    lux: tuple[float, float] | None = None,
    blur: tuple[float, float] | None = None,
    longest_exposure: float | None = None,
) -> Optics:
    """A camera of `kind` as someone set it up, in a room lit 100-500 lux (100-150 when `dim`). A sweep may pin a
    range to its hard end: `lux` (the room's light), `blur` (the lens's sigma, px at the frame's size),
    `longest_exposure` (the auto exposure's limit, s); the draws are made all the same, so the other traits of
    each camera stay as they were."""
    if kind not in CAMERAS:
        raise ValueError(f"unknown camera {kind!r} (known: {', '.join(CAMERAS)})")
    scale = min(size) / 1080
    ranges = {
        "webcam": (0.5 * scale, 1.5 * scale),  # fixed focus: 0.5-1.5 px at 1080p
        "pi-module-3": (0.8, 1.8),  # autofocus, not always on the board's plane
        "pi-hq": (1.0, 2.0),  # a lens focused by hand, never perfectly
        # a phone's autofocus hunting: as a webcam at its frame's scale, a little worse at its worst
        "phone": (0.5 * max(scale, 1.0), 1.7 * max(scale, 1.0)),
    }
    low, high = blur or ranges[kind]
    sigma = low + (high - low) * float(rng.random())
    low, high = lux or (100.0, 150.0 if dim else 500.0)
    light = float(math.exp(math.log(low) + (math.log(high) - math.log(low)) * float(rng.random())))
    longest = float(rng.choice([1 / 30, 1 / 15]))
    return Optics(
        kind,
        sigma,
        light,
        longest_exposure=longest if longest_exposure is None else longest_exposure,
        sharpen=float(rng.uniform(0.0, 0.6)) if kind in ("webcam", "phone") else 0.0,
        jpeg=int(rng.integers(70, 91)) if kind == "webcam" else (int(rng.integers(85, 96)) if kind == "phone" else 0),
        cast=float(rng.uniform(-0.28, 0.28)),
        tint=float(rng.uniform(-0.06, 0.06)),
        exposure=float(rng.uniform(0.8, 1.1)),
    )


@dataclass(frozen=True)
class Shot:
    """What spoils one frame. `defocus_px` and `motion_px` are for a 1080-line frame and scale with the frame's
    height; `lens_sigma` is in the frame's own pixels."""

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
    lens_sigma: float = 0.0  # the lens's Gaussian blur, px at the frame's size
    mosaic: bool = False  # through a Bayer colour filter and its demosaicing
    sharpen: float = 0.0  # the camera's unsharp mask
    lux: float = 0.0  # the light on the board (0: the frame's noise is given as it is)
    exposure_time: float = 0.0  # seconds


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
        name,
        wb,
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


SHAKE_PX_PER_S = 12.0  # a stand's sway after the table is touched (px per second at 1080p, a typical draw)


def world_shot(name: str, optics: Optics, rng: np.random.Generator) -> Shot:
    """One frame from `optics` under conditions `name`: the auto white balance and exposure drifting from frame to
    frame, the room's light a little different, the stand's sway smearing the picture for as long as the shutter is
    open (1/60-1/15 s), noise from the gain that light needs, the camera's sharpening and compression.
    'arm' adds an arm over the board; 'harsh' dims the room, adds a lamp's glare and, half the time, the arm."""
    if name not in CONDITIONS:
        raise ValueError(f"unknown conditions {name!r}")
    harsh = name == "harsh"
    lux = optics.lux * float(rng.uniform(0.93, 1.07)) * (0.6 if harsh else 1.0)
    t = optics.exposure_time(lux)
    gain = optics.gain(lux)
    cast = optics.cast + float(rng.normal(0, 0.03))
    wb = (math.exp(-cast / 2), math.exp(optics.tint + float(rng.normal(0, 0.01))), math.exp(cast / 2))
    sway = abs(float(rng.normal(0, SHAKE_PX_PER_S))) * (1.5 if harsh else 1.0)
    return Shot(
        name,
        wb,
        exposure=optics.exposure * float(rng.uniform(0.94, 1.06)),
        light_slope=float(rng.uniform(0.2, 0.5) if harsh else rng.uniform(0.0, 0.3)),
        vignette=float(rng.uniform(0.1, 0.4) if harsh else rng.uniform(0.0, 0.25)),
        defocus_px=0.0,
        motion_px=sway * t,
        motion_angle=float(rng.uniform(0, math.pi)),
        shot_noise=0.25 * gain,  # a small pixel's few electrons per DN, amplified
        read_noise=1.0 * gain,
        jpeg=optics.jpeg,
        glare=float(rng.uniform(60, 140)) if harsh else 0.0,
        arm=name == "arm" or (harsh and bool(rng.random() < 0.5)),
        light_azimuth=float(rng.uniform(0, 2 * math.pi)),
        light_elevation=math.radians(float(rng.uniform(45, 80))),
        lens_sigma=optics.lens_sigma,
        mosaic=True,
        sharpen=optics.sharpen,
        lux=lux,
        exposure_time=t,
    )
