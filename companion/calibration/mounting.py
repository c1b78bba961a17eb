"""Does the mounted camera see the stickers big enough? Each site's sticker size in pixels, from the profile and the
board pose, against what the pipeline needs (measured by `companion bench vision`), and what to change if not."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from companion.boards.model import Board
from companion.sensing.pieces import Registry
from companion.sensing.vision_pose import Pose
from companion.sensing.vision_profile import CameraProfile

# The smallest sticker side, in pixels, from which the pipeline reads 99 % of frames whole on the mounted-camera
# bench (measured: 12 px in normal conditions; see calibration/README.md), with a pixel of margin.
NEED_PX = 13.0


@dataclass(frozen=True)
class MountingCheck:
    sizes: dict[str, float]  # site id -> the smallest side (px) a sticker shows there
    need_px: float
    distance_mm: float  # from the lens to the board's centre
    tilt_deg: float  # of the camera's axis off vertical

    @property
    def smallest(self) -> tuple[str, float]:
        site = min(self.sizes, key=self.sizes.__getitem__)
        return site, self.sizes[site]

    @property
    def largest(self) -> float:
        return max(self.sizes.values())

    @property
    def approved(self) -> bool:
        return self.smallest[1] >= self.need_px

    def advice(self, image_size: tuple[int, int]) -> list[str]:
        """What to change for the mounting to reach the goal (nothing when it does)."""
        small = self.smallest[1]
        if self.approved:
            return []
        factor = self.need_px / small
        out = [f"bring the camera closer: from about {self.distance_mm:.0f} mm to {self.distance_mm / factor:.0f} mm "
               f"from the board's centre (keep the whole board in view), or use a longer lens"]
        w, h = image_size
        out.append(f"or take frames of at least {math.ceil(w * factor)}x{math.ceil(h * factor)} "
                   f"(the camera's full resolution)")
        if self.tilt_deg > 15 and self.largest > 1.25 * small:
            out.append(f"or mount it more directly above the board: tilted {self.tilt_deg:.0f} degrees, the far "
                       f"side's stickers are {small:.1f} px against {self.largest:.1f} px on the near side")
        return out


def check_mounting(board: Board, registry: Registry, profile: CameraProfile, pose: Pose,
                   need_px: float = NEED_PX) -> MountingCheck:
    """Each site's smallest sticker side in pixels: the game's smallest sticker on the lowest stickered piece,
    centred on the site, square to the board's axes and turned 45 degrees (the mean of its four projected sides, the
    smaller turn)."""
    marked = [e for e in registry.entries if e.sticker is not None]
    z = min(e.height for e in marked) if marked else 0.0
    h = registry.sticker_sizes()[0] / 2
    turns = [np.array([(-h, -h), (h, -h), (h, h), (-h, h)])]
    turns.append(turns[0] @ np.array([[math.cos(math.pi / 4), -math.sin(math.pi / 4)],
                                      [math.sin(math.pi / 4), math.cos(math.pi / 4)]]))
    points = np.array([(s.x + dx, s.y + dy, z) for s in board.sites for square in turns for dx, dy in square])
    px = pose.project(points, profile.camera_matrix, profile.dist_coeffs).reshape(len(board.sites), len(turns), 4, 2)
    sides = np.linalg.norm(px - np.roll(px, 1, axis=2), axis=3).mean(axis=2).min(axis=1)
    centre = np.array([board.width / 2, board.height / 2, 0.0])
    axis = pose.rotation[2]  # the camera's viewing direction in board coordinates
    tilt = math.degrees(math.acos(min(1.0, abs(float(axis[2])))))
    return MountingCheck({s.id: float(v) for s, v in zip(board.sites, sides, strict=True)}, need_px,
                         float(np.linalg.norm(pose.centre - centre)), tilt)


def describe(check: MountingCheck, image_size: tuple[int, int]) -> list[str]:
    """Lines for the user: the sizes, the verdict and what to change."""
    site, small = check.smallest
    sizes = sorted(check.sizes.values())
    lines = [f"stickers at the sites: {small:.1f} px at the smallest ({site}), median {sizes[len(sizes) // 2]:.1f} px, "
             f"largest {check.largest:.1f} px; the camera needs {check.need_px:g} px"]
    if check.approved:
        lines.append("this mounting reaches the goal: every site's stickers are big enough")
    else:
        short = sum(v < check.need_px for v in sizes)
        lines.append(f"this mounting does not reach the goal: {short} of {len(sizes)} sites show stickers under "
                     f"{check.need_px:g} px")
        lines += [f"  {line}" for line in check.advice(image_size)]
    return lines
