"""Where this camera can read a sticker: each site's smallest sticker in pixels, and the frame's blur over its cells.

A sticker's code lies in its cells (a sixth of its side each, border included): what decides whether a camera reads
it is how wide those cells are in pixels and how much of a cell the blur spans. The blur is the lens's and, frame by
frame, the stand's sway: a smear of length L while the shutter is open adds L^2 / 12 to the variance along its own
direction, so the vision measures each frame's blur along its worst direction on the corner markers it placed the
frame by (vision_decode.py `worst_blur`), and judges that frame's sites by it. Both thresholds below come from
`companion bench vision` on the mounted camera with WORLD.md's optics, sway included (calibration/README.md,
"Legible stickers"): the bench sweeps frames by the worst sticker's blur in cells (the frame's worst direction) and by
sticker size, and these are the largest blur and smallest size at which its frames were read all correct 99 % of the
time, with a margin. `calibrate board` approves a mounting only where every site meets both at the lens's blur; the
vision says a site it reads empty but where a sticker would not be legible in this frame is unread, never empty.
"""

from __future__ import annotations

import math

import numpy as np

from companion.boards.model import Board
from companion.sensing.pieces import Registry
from companion.sensing.vision_pose import Pose

# Derived from the sweep (calibration/README.md): frames whose worst sticker had up to 0.45 cells of blur were read
# all correct 99 % of the time in every game (Trajectory's up to 0.5, ORBIT's up to 0.45), and so were the approved
# frames swept again by the blur along each frame's worst direction, sway included (docs/benchmarks.md); stickers
# under 11 px are rarely found as squares at all.
MAX_BLUR_CELLS = 0.45
MIN_SIDE_PX = 11.0


def blur_cells(blur_px: float, side_px: float) -> float:
    """A blur (sigma, px) in a sticker's cells (a sixth of its side)."""
    return 6.0 * blur_px / max(side_px, 1e-6)


def legible(side_px: float, blur_px: float) -> bool:
    return side_px >= MIN_SIDE_PX and blur_cells(blur_px, side_px) <= MAX_BLUR_CELLS


def site_sides(board: Board, registry: Registry, pose: Pose, matrix: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Each site's smallest sticker side in pixels, in the board's site order: the game's smallest sticker on the
    lowest stickered piece, centred on the site, square to the board's axes and turned 45 degrees (the mean of its
    four projected sides, the smaller turn)."""
    marked = [e for e in registry.entries if e.sticker is not None]
    z = min(e.height for e in marked) if marked else 0.0
    h = registry.sticker_sizes()[0] / 2
    turns = [np.array([(-h, -h), (h, -h), (h, h), (-h, h)])]
    c, s = math.cos(math.pi / 4), math.sin(math.pi / 4)
    turns.append(turns[0] @ np.array([[c, -s], [s, c]]))
    points = np.array([(site.x + dx, site.y + dy, z) for site in board.sites for square in turns for dx, dy in square])
    px = pose.project(points, matrix, dist).reshape(len(board.sites), len(turns), 4, 2)
    return np.linalg.norm(px - np.roll(px, 1, axis=2), axis=3).mean(axis=2).min(axis=1)
