"""The camera's pose over the board from its corner fiducials (`companion calibrate board`)."""

from __future__ import annotations

import cv2
import numpy as np

from companion.boards.model import Board
from companion.errors import UserError
from companion.sensing.vision_decode import fit_edges
from companion.sensing.vision_pose import fiducial_corners, solve_pose
from companion.sensing.vision_profile import BoardPose, CameraProfile

MAX_REPROJECTION_PX_720P = 1.5  # a calibration fit worse than this (scaled to the frame) is refused
MIN_MARKERS = 3  # corner markers (12 points) that pin the pose down without ambiguity


def find_fiducials(image: np.ndarray, board: Board) -> dict[int, np.ndarray]:
    """Board fiducial index -> its four corners (pixels, fitted to the marker's edges) for every corner marker in
    view."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    found: dict[int, np.ndarray] = {}
    for dictionary in sorted({f.dictionary for f in board.fiducials}):
        detector = cv2.aruco.ArucoDetector(
            cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)), cv2.aruco.DetectorParameters()
        )
        corners, ids, _ = detector.detectMarkers(gray)
        if ids is None:
            continue
        for c, marker_id in zip(corners, ids.ravel(), strict=True):
            for index, fid in enumerate(board.fiducials):
                if fid.dictionary == dictionary and fid.id == int(marker_id) and index not in found:
                    found[index] = fit_edges(gray, c.reshape(4, 2))  # where a blurred marker's edges meet
    return found


def calibrate_pose(image: np.ndarray, board: Board, profile: CameraProfile, where: str = "image") -> BoardPose:
    """The board-to-camera pose, refused when too few markers show or the fit is poor (wrong profile, bent board)."""
    height, width = image.shape[:2]
    if (width, height) != tuple(profile.image_size):
        w, h = profile.image_size
        raise UserError(f"{where}: the image is {width}x{height} but camera profile {profile.camera!r} is for {w}x{h}")
    found = find_fiducials(image, board)
    if len(found) < MIN_MARKERS:
        raise UserError(
            f"{where}: only {len(found)} of board {board.name!r}'s {len(board.fiducials)} corner "
            f"markers are visible; {MIN_MARKERS} are needed"
        )
    obj = np.concatenate([fiducial_corners(board.fiducials[i]) for i in found])
    img = np.concatenate(list(found.values()))
    pose, error = solve_pose(obj, img, profile.camera_matrix, profile.dist_coeffs)
    limit = MAX_REPROJECTION_PX_720P * height / 720
    if error > limit:
        raise UserError(
            f"{where}: the corner markers fit the pose with {error:.2f} px error (limit {limit:.2f} px): "
            f"the profile is not of this camera, or the board is not flat"
        )
    return BoardPose(board.name, tuple(float(v) for v in pose.rvec), tuple(float(v) for v in pose.tvec), error)
