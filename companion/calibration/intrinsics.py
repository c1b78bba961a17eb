"""Camera intrinsics and lens distortion from photos of the ChArUco target (`companion calibrate camera`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from companion.calibration.charuco import MARKER_MM, SQUARE_MM, charuco_board
from companion.errors import UserError
from companion.sensing.vision_decode import edge_blur, fit_edges
from companion.sensing.vision_profile import CameraProfile, Sharpness

MIN_VIEWS = 6  # fewer views leave focal length and distortion poorly pinned down
MIN_CORNERS = 8  # chessboard corners a view needs to count (and not be nearly collinear)


@dataclass(frozen=True)
class IntrinsicsResult:
    profile: CameraProfile
    rms_px: float
    used: tuple[str, ...]  # names of the views that counted
    skipped: tuple[str, ...]  # views with too little of the target in them


def find_target(image: np.ndarray) -> tuple[np.ndarray, np.ndarray, float | None] | None:
    """The target's chessboard corners and ids, and the lens's blur measured on its markers (None where none is big
    enough to measure), or None when too few corners are seen."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    board = charuco_board()
    corners, ids, markers, _ = cv2.aruco.CharucoDetector(board).detectBoard(gray)
    if ids is None or len(ids) < MIN_CORNERS:
        return None
    # Each marker's black border meets the white of its square all round: the rise across those edges is the blur
    # (vision_decode.edge_blur, as `calibrate board` measures it on the board's own markers).
    cells = board.getDictionary().markerSize + 2
    quiet = (SQUARE_MM - MARKER_MM) / 2 / (MARKER_MM / cells)  # the white of its square round a marker, in cells
    blurs = [b for c in markers if (b := edge_blur(gray, fit_edges(gray, c.reshape(4, 2)), cells, quiet)) is not None]
    return corners.reshape(-1, 2), ids.ravel(), float(np.median(blurs)) if blurs else None


def calibrate_intrinsics(views: Sequence[tuple[str, np.ndarray]], camera: str = "camera") -> IntrinsicsResult:
    """Fit the pinhole model with k1, k2, p1, p2 to every view that shows enough of the target."""
    if not views:
        raise UserError("calibrate camera: no images given")
    sizes = {image.shape[1::-1] for _, image in views}
    if len(sizes) > 1:
        listed = ", ".join(f"{w}x{h}" for w, h in sorted(sizes))
        raise UserError(f"calibrate camera: the images differ in size ({listed}); one profile is for one frame size")
    width, height = sizes.pop()
    board = charuco_board()
    all_obj, all_img, used, skipped, blurs = [], [], [], [], []
    for name, image in views:
        found = find_target(image)
        if found is None:
            skipped.append(name)
            continue
        corners, ids, blur = found
        if blur is not None:
            blurs.append(blur)
        obj, img = board.matchImagePoints(corners.reshape(-1, 1, 2), ids)
        all_obj.append(obj.astype(np.float32))
        all_img.append(img.astype(np.float32))
        used.append(name)
    if len(used) < MIN_VIEWS:
        raise UserError(
            f"calibrate camera: only {len(used)} of {len(views)} images show enough of the ChArUco "
            f"target (at least {MIN_CORNERS} corners); {MIN_VIEWS} are needed"
        )
    # k3 stays 0: with a webcam's mild barrel it only trades off against k2 and bends the frame's corners, where
    # few views reach.
    rms, matrix, dist, _, _ = cv2.calibrateCamera(all_obj, all_img, (width, height), None, None, flags=cv2.CALIB_FIX_K3)
    sharpness = Sharpness(float(np.median(blurs)), float(min(blurs)), len(blurs)) if blurs else None
    profile = CameraProfile(
        camera,
        (width, height),
        tuple(tuple(float(v) for v in row) for row in matrix),
        tuple(float(v) for v in dist.ravel()[:5]),
        float(rms),
        sharpness=sharpness,
    )
    return IntrinsicsResult(profile, float(rms), tuple(used), tuple(skipped))
