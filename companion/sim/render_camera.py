"""The twin's camera: a pinhole with lens distortion hanging over the board, and the image conditions it shoots in."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from companion.sensing.vision_profile import BoardPose, CameraProfile

HEIGHT_MM = 900.0  # lens above the board
MARGIN_MM = 30.0  # table visible beyond the board's top and bottom edges
FRAME_SIZES = ((1280, 720), (1920, 1080))  # what webcams and the Pi camera deliver, smallest first
MIN_STICKER_PX = 18.0  # below about this, stickers are missed often (measured: 16h5 at 17 px, 20% missed, harsh)


@dataclass(frozen=True)
class SimCamera:
    """Intrinsics (pixels), distortion (k1, k2, p1, p2, k3) and the board-to-camera pose (rvec, tvec in mm)."""

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    dist: tuple[float, ...]
    rvec: tuple[float, float, float]
    tvec: tuple[float, float, float]

    @property
    def matrix(self) -> np.ndarray:
        return np.array([[self.fx, 0, self.cx], [0, self.fy, self.cy], [0, 0, 1]], np.float64)

    @property
    def distortion(self) -> np.ndarray:
        return np.array(self.dist, np.float64)

    @property
    def name(self) -> str:
        return f"sim-{self.height}p"

    def project(self, points: np.ndarray, distorted: bool = True) -> np.ndarray:
        """Pixels of (n, 3) board points (mm, z up)."""
        dist = self.distortion if distorted else np.zeros(5)
        pixels, _ = cv2.projectPoints(
            np.asarray(points, np.float64).reshape(-1, 1, 3),
            np.array(self.rvec),
            np.array(self.tvec),
            self.matrix,
            dist,
        )
        return pixels.reshape(-1, 2)

    def moved(self, dx: float = 0.0, dy: float = 0.0, yaw_deg: float = 0.0, tilt_deg: float = 0.0) -> SimCamera:
        """The same camera after the board slid (dx, dy mm) and turned, or the camera tilted."""
        rot, _ = cv2.Rodrigues(np.array(self.rvec))
        centre = -rot.T @ np.array(self.tvec)
        small, _ = cv2.Rodrigues(np.array([math.radians(tilt_deg), 0.0, math.radians(yaw_deg)]))
        rot2 = small @ rot
        centre2 = centre - np.array([dx, dy, 0.0])
        tvec2 = -rot2 @ centre2
        rvec2, _ = cv2.Rodrigues(rot2)
        return replace(self, rvec=tuple(rvec2.ravel()), tvec=tuple(tvec2.ravel()))


def overhead_camera(board_width: float, board_height: float, width: int = 1920, height: int = 1080) -> SimCamera:
    """A camera centred over the board, the board filling the frame's height, with a webcam's mild barrel."""
    f = height * HEIGHT_MM / (board_height + 2 * MARGIN_MM)
    centre = np.array([board_width / 2, board_height / 2, HEIGHT_MM])
    rot = np.diag([1.0, -1.0, -1.0])  # image x along board x, image y down the board, looking down
    rvec, _ = cv2.Rodrigues(rot)
    tvec = -rot @ centre
    return SimCamera(
        width,
        height,
        f,
        f,
        (width - 1) / 2,
        (height - 1) / 2,
        (-0.08, 0.03, 0.0, 0.0, 0.0),
        tuple(rvec.ravel()),
        tuple(tvec.ravel()),
    )


def frame_size(board_height: float, sticker_mm: float) -> tuple[int, int]:
    """The smallest common frame size at which the overhead camera, the board filling the frame's height, sees a
    sticker at least MIN_STICKER_PX wide (Trajectory's 18 mm stickers: 720p; ORBIT's 14 mm on its 700 mm board:
    1080p); the largest when none does."""
    for width, height in FRAME_SIZES:
        if sticker_mm * height / (board_height + 2 * MARGIN_MM) >= MIN_STICKER_PX:
            return width, height
    return FRAME_SIZES[-1]


def jittered(camera: SimCamera, rng: np.random.Generator, shift_mm: float = 6.0, angle_deg: float = 1.5) -> SimCamera:
    """The camera as a real mount leaves it from one session to the next: a few mm and a degree or so off."""
    dx, dy = rng.uniform(-shift_mm, shift_mm, 2)
    return camera.moved(dx, dy, rng.uniform(-angle_deg, angle_deg), rng.uniform(-angle_deg, angle_deg))


@dataclass(frozen=True)
class Conditions:
    """How the picture is spoilt: optics blur, sensor noise, uneven light, glare, JPEG."""

    name: str
    blur_sigma: float
    noise_sigma: float
    gain_low: float
    gain_high: float
    vignette: float
    glare: float  # peak added brightness of a glare spot, 0 for none
    jpeg_quality: int


NORMAL = Conditions("normal", 0.8, 3.0, 0.6, 1.1, 0.15, 0.0, 85)
HARSH = Conditions("harsh", 1.4, 7.0, 0.45, 1.1, 0.25, 110.0, 70)
CONDITIONS = {c.name: c for c in (NORMAL, HARSH)}


def sim_profile(camera: SimCamera, board: str) -> CameraProfile:
    """The profile a perfect calibration of this camera would give (what the bench and tests measure against)."""
    return CameraProfile(
        camera.name,
        (camera.width, camera.height),
        tuple(tuple(float(v) for v in row) for row in camera.matrix),
        tuple(camera.dist),
        0.0,
        BoardPose(board, camera.rvec, camera.tvec, 0.0),
    )
