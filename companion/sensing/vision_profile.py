"""A camera profile: one camera's intrinsics and distortion, its pose over the board and its colour ranges.

`companion calibrate camera` writes the intrinsics, `calibrate board` adds the pose, `calibrate colours` the colours.
The file is JSON; a missing or bad file gives one line naming the file and the field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from companion.errors import UserError

FORMAT = "orrery-camera-profile"


@dataclass(frozen=True)
class BoardPose:
    """Where the board lies in the camera's frame (OpenCV rvec/tvec, board mm) and how well that fitted."""

    board: str
    rvec: tuple[float, float, float]
    tvec: tuple[float, float, float]
    reprojection_px: float


@dataclass(frozen=True)
class ColourRange:
    """HSV bounds (OpenCV scale: hue 0-179) of one piece colour; `low` hue above `high` wraps around red."""

    low: tuple[int, int, int]
    high: tuple[int, int, int]


@dataclass(frozen=True)
class CameraProfile:
    camera: str
    image_size: tuple[int, int]  # width, height
    matrix: tuple[tuple[float, ...], ...]
    distortion: tuple[float, ...]
    intrinsics_rms_px: float = 0.0
    pose: BoardPose | None = None
    colours: dict[str, ColourRange] = field(default_factory=dict)

    @property
    def camera_matrix(self) -> np.ndarray:
        return np.array(self.matrix, np.float64)

    @property
    def dist_coeffs(self) -> np.ndarray:
        return np.array(self.distortion, np.float64)

    def with_pose(self, pose: BoardPose) -> CameraProfile:
        return replace(self, pose=pose)

    def with_colours(self, colours: dict[str, ColourRange]) -> CameraProfile:
        return replace(self, colours=colours)


def save_profile(profile: CameraProfile, path: str | Path) -> None:
    data: dict = {
        "format": FORMAT,
        "version": 1,
        "camera": profile.camera,
        "image_size": list(profile.image_size),
        "camera_matrix": [list(row) for row in profile.matrix],
        "distortion": list(profile.distortion),
        "intrinsics_rms_px": profile.intrinsics_rms_px,
        "board_pose": None,
        "colours": {name: {"low": list(c.low), "high": list(c.high)} for name, c in profile.colours.items()},
    }
    if profile.pose is not None:
        p = profile.pose
        data["board_pose"] = {"board": p.board, "rvec": list(p.rvec), "tvec": list(p.tvec),
                              "reprojection_px": p.reprojection_px}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(data, indent=1) + "\n")


def load_profile(path: str | Path) -> CameraProfile:
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise UserError(f"{path}: no such camera profile (make one with `companion calibrate camera`)") from None
    except OSError as error:
        raise UserError(f"{path}: cannot read camera profile ({error.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise UserError(f"{path}: camera profile is not JSON ({error})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UserError(f"{path}: not a camera profile (format must be {FORMAT!r})")
    key = "camera_matrix"
    try:
        key = "image_size"
        width, height = (int(v) for v in data["image_size"])
        key = "camera_matrix"
        matrix = tuple(tuple(float(v) for v in row) for row in data["camera_matrix"])
        if len(matrix) != 3 or any(len(row) != 3 for row in matrix) or matrix[0][0] <= 0 or matrix[1][1] <= 0:
            raise ValueError("must be a 3x3 matrix with positive focal lengths")
        key = "distortion"
        distortion = tuple(float(v) for v in data["distortion"])
        if len(distortion) not in (4, 5, 8, 12, 14):
            raise ValueError("must have 4, 5, 8, 12 or 14 coefficients")
        pose = None
        if data.get("board_pose"):
            key = "board_pose"
            raw = data["board_pose"]
            rvec = tuple(float(v) for v in raw["rvec"])
            tvec = tuple(float(v) for v in raw["tvec"])
            if len(rvec) != 3 or len(tvec) != 3:
                raise ValueError("rvec and tvec must have 3 numbers each")
            pose = BoardPose(str(raw["board"]), rvec, tvec, float(raw.get("reprojection_px", 0.0)))
        key = "colours"
        colours = {
            str(name): ColourRange(tuple(int(v) for v in c["low"]), tuple(int(v) for v in c["high"]))
            for name, c in (data.get("colours") or {}).items()
        }
        for name, c in colours.items():
            if len(c.low) != 3 or len(c.high) != 3:
                raise ValueError(f"{name}: low and high must be 3 numbers (H, S, V)")
    except (KeyError, TypeError, ValueError) as error:
        raise UserError(f"{path}: {key}: bad or missing ({error})") from None
    return CameraProfile(
        str(data.get("camera", path.stem)), (width, height), matrix, distortion,
        float(data.get("intrinsics_rms_px", 0.0)), pose, colours,
    )
