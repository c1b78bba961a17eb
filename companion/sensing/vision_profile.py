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
    blur_px: float | None = None  # the lens's blur (sigma, px) on the board's markers in the same photo


@dataclass(frozen=True)
class Sharpness:
    """The lens's blur (a Gaussian's sigma, px) measured on the ChArUco target's markers by `calibrate camera`: the
    median over the photos, and the sharpest photo's (the lens at its best, where the photos were taken)."""

    blur_px: float
    sharpest_px: float
    photos: int


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
    sharpness: Sharpness | None = None

    @property
    def blur_px(self) -> float | None:
        """The lens's blur as best measured: on the board's markers where the pose was taken, else on the target."""
        if self.pose is not None and self.pose.blur_px is not None:
            return self.pose.blur_px
        return self.sharpness.blur_px if self.sharpness is not None else None

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
        "sharpness": None,
    }
    if profile.sharpness is not None:
        k = profile.sharpness
        data["sharpness"] = {"blur_px": k.blur_px, "sharpest_px": k.sharpest_px, "photos": k.photos}
    if profile.pose is not None:
        p = profile.pose
        data["board_pose"] = {
            "board": p.board,
            "rvec": list(p.rvec),
            "tvec": list(p.tvec),
            "reprojection_px": p.reprojection_px,
            "blur_px": p.blur_px,
        }
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
            blur = raw.get("blur_px")
            pose = BoardPose(
                str(raw["board"]),
                rvec,
                tvec,
                float(raw.get("reprojection_px", 0.0)),
                None if blur is None else _positive(blur),
            )
        sharpness = None
        if data.get("sharpness"):
            key = "sharpness"
            raw = data["sharpness"]
            sharpness = Sharpness(_positive(raw["blur_px"]), _positive(raw["sharpest_px"]), int(raw["photos"]))
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
        str(data.get("camera", path.stem)),
        (width, height),
        matrix,
        distortion,
        float(data.get("intrinsics_rms_px", 0.0)),
        pose,
        colours,
        sharpness,
    )


def _positive(value: float) -> float:
    """A blur in px: a number above 0 (a TypeError or ValueError names the field)."""
    number = float(value)
    if not 0 < number < 1000:
        raise ValueError(f"a blur must be a number of px above 0, not {value!r}")
    return number
