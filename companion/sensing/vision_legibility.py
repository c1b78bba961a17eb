"""Where this camera can read a sticker: each site's smallest sticker in pixels, and the frame's blur over its cells.

A sticker's code lies in its cells (a sixth of its side each, border included): what decides whether a camera reads
it is how wide those cells are in pixels and how much of a cell the blur spans. The blur is the lens's and, frame by
frame, the stand's sway: a smear of length L while the shutter is open adds L^2 / 12 to the variance along its own
direction, so the vision measures each frame's blur along its worst direction on the corner markers it placed the
frame by (vision_decode.py `worst_blur`), and judges that frame's sites by it too. The thresholds below come from
`companion bench vision` on the mounted camera with WORLD.md's optics, sway included (calibration/README.md,
"Legible stickers"): the bench sweeps frames and stickers by the worst sticker's blur in cells and by sticker size.
`calibrate board` approves a mounting only where every site's smallest sticker is 11 px or more and the lens's blur
spans at most 0.45 of its cells (where frames were read all correct 99 % of the time, with a margin); the vision
says a site it reads empty unread, never empty, where a sticker would not be legible so, or where this frame's blur
along its worst direction spans more than 0.5 of its cells (where 99 % of stickers were still read).
"""

from __future__ import annotations

import math

import numpy as np

from companion.boards.model import Board
from companion.sensing.pieces import Registry
from companion.sensing.vision_pose import Pose

# Derived from the sweep (calibration/README.md): frames whose worst sticker had up to 0.45 cells of blur were read
# all correct 99 % of the time in every game (Trajectory's up to 0.5, ORBIT's up to 0.45); stickers under 11 px are
# rarely found as squares at all. Swept again by the lens's blur as `calibrate board` measures it (`companion bench
# vision --per-mounting 2 --conditions normal`, Trajectory `--sizes 1280x720,1920x1080 --scenes 120 --seed 911`,
# ORBIT `--game orbit --sizes 1920x1080 --scenes 80 --seed 921`, its rows "by the worst sticker's lens blur"): every
# frame read all correct up to 0.6 cells at 720p, 0.55 at 1080p and, for ORBIT, 0.5 (90.9 % at 0.5-0.55), so 0.45
# keeps its margin under the least of them.
MAX_BLUR_CELLS = 0.45
MIN_SIDE_PX = 11.0
# A frame the stand's sway smeared is judged by the blur along its worst direction against where stickers stop being
# read, not against approval's margin. The every-mounting sweep by that measure (the commands above; the line
# "stickers read 99% or more in every bin", from "stickers by their blur in cells"): Trajectory 1080p read 99.75 % of
# 405 stickers at 0.4-0.45 cells, 99.67 % of 303 at 0.45-0.5 and 95.76 % of 283 at 0.5-0.55 (to 0.5); 720p 100 % to
# 0.55, 98.81 % of 253 at 0.55-0.6 (to 0.55); ORBIT 1080p 99.43 % of 175 at 0.55-0.6, 96.57 % of 321 at 0.6-0.7 (to
# 0.6). The least of them stands: 0.5. At 0.45 the frames of a mounting approved near its limit would leave every site
# unread whenever the worst direction measured a little over the lens's four edges' median.
MAX_FRAME_BLUR_CELLS = 0.5


def blur_cells(blur_px: float, side_px: float) -> float:
    """A blur (sigma, px) in a sticker's cells (a sixth of its side)."""
    return 6.0 * blur_px / max(side_px, 1e-6)


def legible(side_px: float, blur_px: float, frame_blur_px: float | None = None) -> bool:
    """Whether a sticker `side_px` wide reads at the lens's blur (`blur_px`, the approval's limit) and, where given,
    at a frame's blur along its worst direction (`frame_blur_px`, where reading stops)."""
    if side_px < MIN_SIDE_PX or blur_cells(blur_px, side_px) > MAX_BLUR_CELLS:
        return False
    return frame_blur_px is None or blur_cells(frame_blur_px, side_px) <= MAX_FRAME_BLUR_CELLS


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
