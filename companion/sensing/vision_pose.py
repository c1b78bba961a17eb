"""The camera's pose over the board: from corner markers, and from pixels back to board mm at a given height."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from companion.boards.model import Fiducial


def fiducial_corners(fid: Fiducial) -> np.ndarray:
    """The marker's corners in board mm (z = 0) in OpenCV's order: top-left, top-right, bottom-right, bottom-left.

    Markers are printed upright: their top edge towards the board's +y.
    """
    h = fid.size / 2
    return np.array(
        [(fid.x - h, fid.y + h, 0), (fid.x + h, fid.y + h, 0), (fid.x + h, fid.y - h, 0), (fid.x - h, fid.y - h, 0)],
        np.float64,
    )


@dataclass(frozen=True)
class Pose:
    """Board-to-camera rotation and translation (OpenCV convention; board mm, z up out of the board)."""

    rvec: np.ndarray
    tvec: np.ndarray

    # (worked out once a pose: a reading traces every sticker it decodes back to the board through it)
    @functools.cached_property
    def rotation(self) -> np.ndarray:
        return cv2.Rodrigues(self.rvec)[0]

    @functools.cached_property
    def centre(self) -> np.ndarray:
        """The camera's position in board mm."""
        return -self.rotation.T @ self.tvec.reshape(3)

    def project(self, points: np.ndarray, matrix: np.ndarray, dist: np.ndarray) -> np.ndarray:
        pixels, _ = cv2.projectPoints(
            np.asarray(points, np.float64).reshape(-1, 1, 3), self.rvec, self.tvec, matrix, dist
        )
        return pixels.reshape(-1, 2)

    def to_board(
        self, pixels: np.ndarray, heights: np.ndarray | float, matrix: np.ndarray, dist: np.ndarray
    ) -> np.ndarray:
        """Board (x, y) in mm where each pixel's ray meets the plane z = height (the top of a piece)."""
        pixels = np.asarray(pixels, np.float64).reshape(-1, 1, 2)
        if len(pixels) == 0:
            return np.zeros((0, 2))
        normal = cv2.undistortPoints(pixels, matrix, dist).reshape(-1, 2)
        rays = np.column_stack([normal, np.ones(len(normal))]) @ self.rotation  # R^T d for each row
        centre = self.centre
        s = (np.broadcast_to(np.asarray(heights, np.float64), (len(rays),)) - centre[2]) / rays[:, 2]
        return centre[:2] + s[:, None] * rays[:, :2]


def solve_pose(
    object_points: np.ndarray,
    image_points: np.ndarray,
    matrix: np.ndarray,
    dist: np.ndarray,
    guess: Pose | None = None,
) -> tuple[Pose, float]:
    """The pose that best explains the marker corners, and its RMS reprojection error in pixels."""
    obj = np.asarray(object_points, np.float64).reshape(-1, 1, 3)
    # Image points as float32: OpenCV 5's IPPE has given NaN poses for some float64 points (the same points in
    # float32 solve).
    img = np.asarray(image_points, np.float32).reshape(-1, 1, 2)
    if guess is not None:
        ok, rvec, tvec = cv2.solvePnP(
            obj, img, matrix, dist, guess.rvec.copy(), guess.tvec.copy(), True, cv2.SOLVEPNP_ITERATIVE
        )
    else:
        ok, rvec, tvec = cv2.solvePnP(obj, img, matrix, dist, flags=cv2.SOLVEPNP_IPPE)
        if ok:
            ok, rvec, tvec = cv2.solvePnP(obj, img, matrix, dist, rvec, tvec, True, cv2.SOLVEPNP_ITERATIVE)
    if not ok:
        raise ValueError("solvePnP found no pose")
    pose = Pose(rvec.reshape(3), tvec.reshape(3))
    error = pose.project(obj, matrix, dist) - img.reshape(-1, 2)
    return pose, float(np.sqrt(np.mean(np.sum(error**2, axis=1))))
