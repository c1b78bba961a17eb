"""Does the mounted camera read the stickers? Each site's sticker size in pixels (from the profile and the board
pose) and the lens's blur (measured on the board's own markers in the same photo), against what the pipeline needs
(sensing/vision_legibility.py: derived from `companion bench vision` with WORLD.md's optics), and what to change if
not."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from companion.boards.model import Board
from companion.calibration.board_pose import find_fiducials
from companion.sensing.pieces import Registry
from companion.sensing.vision_decode import edge_blur
from companion.sensing.vision_legibility import MAX_BLUR_CELLS, MIN_SIDE_PX, blur_cells, legible, site_sides
from companion.sensing.vision_pose import Pose
from companion.sensing.vision_profile import CameraProfile

BLURRED_PX = 1.2  # a lens's blur (sigma, px) beyond which focusing it is the first thing to try
UNMEASURED_BLUR_PX = 1.5  # taken when neither the board's markers nor the target measured the blur (WORLD.md's worst)
# The board's markers blurred this much more than the lens at its sharpest (the target's sharpest photo): the lens
# is focused elsewhere than on the board (a twentieth of a pixel of sigma is the measurement's own spread).
DEFOCUSED_RATIO = 1.25


@dataclass(frozen=True)
class MountingCheck:
    sizes: dict[str, float]  # site id -> the smallest side (px) a sticker shows there
    blur_px: float  # the lens's blur (sigma, px) measured on the board's markers
    distance_mm: float  # from the lens to the board's centre
    tilt_deg: float  # of the camera's axis off vertical
    sharpest_px: float | None = None  # the lens at its best: the target's sharpest photo (`calibrate camera`)
    blur_from: str = "the board's markers"  # where `blur_px` was measured

    @property
    def smallest(self) -> tuple[str, float]:
        site = min(self.sizes, key=self.sizes.__getitem__)
        return site, self.sizes[site]

    @property
    def largest(self) -> float:
        return max(self.sizes.values())

    @property
    def need_px(self) -> float:
        """The smallest sticker side this lens's blur allows."""
        return max(MIN_SIDE_PX, 6.0 * self.blur_px / MAX_BLUR_CELLS)

    @property
    def illegible(self) -> list[str]:
        return sorted(site for site, side in self.sizes.items() if not legible(side, self.blur_px))

    @property
    def approved(self) -> bool:
        return not self.illegible

    @property
    def defocused(self) -> bool:
        """The board is blurred well beyond what the lens gave the calibration target: focus is the remedy."""
        return self.sharpest_px is not None and self.blur_px > max(
            DEFOCUSED_RATIO * self.sharpest_px, self.sharpest_px + 0.2
        )

    def advice(self, image_size: tuple[int, int]) -> list[str]:
        """What to change for the mounting to reach the goal (nothing when it does)."""
        small = self.smallest[1]
        if self.approved:
            return []
        out = []
        if self.defocused:  # the lens can do better: it showed less blur on the target
            assert self.sharpest_px is not None
            sharp = max(MIN_SIDE_PX, 6.0 * max(self.sharpest_px, 0.5) / MAX_BLUR_CELLS)
            out.append(
                f"focus the camera on the board: its markers show {self.blur_px:.1f} px of blur where the "
                f"calibration target showed {self.sharpest_px:.1f} px; focused as well, the stickers would "
                f"need {sharp:.0f} px, not {self.need_px:.0f}"
            )
        elif self.blur_px > BLURRED_PX:
            sharp = max(MIN_SIDE_PX, 6.0 * BLURRED_PX / MAX_BLUR_CELLS)
            soft = (
                ""
                if self.sharpest_px is None
                else f" (the calibration target showed {self.sharpest_px:.1f} px at its sharpest: "
                "the lens itself is soft)"
            )
            out.append(
                f"focus the camera on the board: its markers show {self.blur_px:.1f} px of blur{soft}; sharp "
                f"(under {BLURRED_PX:g} px) the stickers would need {sharp:.0f} px, not {self.need_px:.0f}"
            )
        factor = self.need_px / small
        out.append(
            f"bring the camera closer: from about {self.distance_mm:.0f} mm to "
            f"{self.distance_mm / factor:.0f} mm from the board's centre (keep the whole board in view), or "
            f"use a longer lens"
        )
        w, h = image_size
        out.append(
            f"or take frames of at least {math.ceil(w * factor)}x{math.ceil(h * factor)} "
            f"(the camera's full resolution: a Pi camera's whole sensor)"
        )
        if self.tilt_deg > 15 and self.largest > 1.25 * small:
            out.append(
                f"or mount it more directly above the board: tilted {self.tilt_deg:.0f} degrees, the far "
                f"side's stickers are {small:.1f} px against {self.largest:.1f} px on the near side"
            )
        return out


def board_blur(image: np.ndarray, board: Board) -> float | None:
    """The lens's blur (a Gaussian's sigma, px) measured across the edges of the board's corner markers in a photo
    from the mounted camera (the median of the markers'); None when none is big enough to measure."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    blurs = [b for corners in find_fiducials(gray, board).values() if (b := edge_blur(gray, corners)) is not None]
    return float(np.median(blurs)) if blurs else None


def check_mounting(
    board: Board, registry: Registry, profile: CameraProfile, pose: Pose, blur_px: float | None
) -> MountingCheck:
    """Each site's smallest sticker side in pixels (sensing/vision_legibility.py `site_sides`) with the lens's
    blur: legible where the side reaches MIN_SIDE_PX and the blur spans at most MAX_BLUR_CELLS of its cells. The
    blur is the board's markers' (`blur_px`), else the calibration target's (the profile's sharpness, from
    `calibrate camera`), else WORLD.md's worst."""
    sharpness = profile.sharpness
    blur_from = "the board's markers"
    if blur_px is None:
        blur_px, blur_from = (
            (sharpness.blur_px, "the calibration target (the board's markers are too small)")
            if sharpness is not None
            else (UNMEASURED_BLUR_PX, "not measured: taken as the worst a webcam gives")
        )
    sides = site_sides(board, registry, pose, profile.camera_matrix, profile.dist_coeffs)
    centre = [board.width / 2, board.height / 2, 0.0]
    axis = pose.rotation[2]  # the camera's viewing direction in board coordinates
    tilt = math.degrees(math.acos(min(1.0, abs(float(axis[2])))))
    distance = math.dist(pose.centre, centre)
    return MountingCheck(
        {s.id: float(v) for s, v in zip(board.sites, sides, strict=True)},
        blur_px,
        distance,
        tilt,
        None if sharpness is None else sharpness.sharpest_px,
        blur_from,
    )


def describe(check: MountingCheck, image_size: tuple[int, int]) -> list[str]:
    """Lines for the user: the sizes, the blur, the verdict and what to change."""
    site, small = check.smallest
    sizes = sorted(check.sizes.values())
    lines = [
        f"stickers at the sites: {small:.1f} px at the smallest ({site}), median {sizes[len(sizes) // 2]:.1f} px, "
        f"largest {check.largest:.1f} px; the lens blurs by {check.blur_px:.2f} px ({check.blur_from}; "
        f"{blur_cells(check.blur_px, small):.2f} of the smallest sticker's cells), so the camera needs "
        f"{check.need_px:.1f} px"
    ]
    if check.approved:
        lines.append("this mounting reaches the goal: every site's stickers are big and sharp enough")
    else:
        short = len(check.illegible)
        lines.append(
            f"this mounting does not reach the goal: {short} of {len(sizes)} sites show stickers under "
            f"{check.need_px:.1f} px at this blur"
        )
        lines += [f"  {line}" for line in check.advice(image_size)]
    return lines
