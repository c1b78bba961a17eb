"""Colour ranges of unmarked pieces, sampled from a photo of known pieces on known sites (`calibrate colours`).

The layout file says which piece stands where: a JSON object, site id -> registry entry id, e.g.
{"o1s0": "scout-red", "o2s3": "scout-blue"}. Each piece's top face is sampled around its site, in a top-down view
at the piece's height; the range is widened beyond the samples so the rest of the board's lighting still fits.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from companion.boards.model import Board
from companion.errors import UserError
from companion.sensing.pieces import Registry
from companion.sensing.vision_colour import PX_PER_MM, ColourFinder, top_down
from companion.sensing.vision_pose import Pose
from companion.sensing.vision_profile import BoardPose, CameraProfile, ColourRange

SAMPLE_SHARE = 0.5  # of the top face's inradius: stays on the face when a piece stands a few mm off its site
HUE_MARGIN = 5
SAT_MARGIN = 40
GREY_SATURATION = 50  # below this median saturation the hue means nothing: accept any hue


def load_layout(path: str | Path, board: Board, registry: Registry) -> dict[str, str]:
    """Site id -> unmarked entry id, checked against the board and the registry."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except OSError as error:
        raise UserError(f"{path}: cannot read layout ({error.strerror})") from None
    except json.JSONDecodeError as error:
        raise UserError(f"{path}: layout is not JSON ({error.msg} at line {error.lineno})") from None
    if not isinstance(data, dict) or not data:
        raise UserError(f"{path}: layout must be a JSON object of site id -> piece entry id")
    sites = {s.id for s in board.sites}
    entries = {e.id: e for e in registry.entries}
    kinds = registry.colour_kinds()
    for site, entry_id in data.items():
        if site not in sites:
            raise UserError(f"{path}: {site}: board {board.name!r} has no such site")
        if entry_id not in entries:
            raise UserError(f"{path}: {site}: {entry_id!r} is not an entry of the piece registry")
        if entries[entry_id].sticker is not None:
            raise UserError(f"{path}: {site}: {entry_id!r} carries a sticker; lay out pieces without stickers")
        others = sorted(kinds[entries[entry_id].colour] - {entries[entry_id].piece})
        if others:
            raise UserError(
                f"{path}: {site}: {entry_id!r} is {entries[entry_id].colour}, as {', '.join(others)} "
                "are: colour cannot tell them apart"
            )
    return {str(k): str(v) for k, v in data.items()}


def sample_colours(
    image: np.ndarray, board: Board, registry: Registry, profile: CameraProfile, pose: BoardPose, layout: dict[str, str]
) -> dict[str, ColourRange]:
    """Colour name -> HSV range covering every sampled piece of that colour."""
    import cv2  # heavy: only when sampling

    where = Pose(np.array(pose.rvec, np.float64), np.array(pose.tvec, np.float64))
    sites = {s.id: s for s in board.sites}
    samples: dict[str, list[np.ndarray]] = {}
    views: dict[float, np.ndarray] = {}
    for site_id, entry_id in layout.items():
        entry = registry.entry(entry_id)
        if entry.height not in views:
            view = top_down(image, board, where, profile.camera_matrix, profile.dist_coeffs, entry.height)
            views[entry.height] = cv2.cvtColor(view, cv2.COLOR_BGR2HSV)
        hsv = views[entry.height]
        site = sites[site_id]
        col, row = site.x * PX_PER_MM - 0.5, (board.height - site.y) * PX_PER_MM - 0.5
        radius = SAMPLE_SHARE * entry.radius * math.cos(math.pi / entry.sides) * PX_PER_MM
        rows, cols = np.ogrid[: hsv.shape[0], : hsv.shape[1]]
        disc = (cols - col) ** 2 + (rows - row) ** 2 <= radius**2
        samples.setdefault(entry.colour, []).append(hsv[disc])
    return {colour: colour_range(np.concatenate(chunks)) for colour, chunks in samples.items()}


def check_colours(
    image: np.ndarray, board: Board, registry: Registry, profile: CameraProfile, pose: BoardPose, layout: dict[str, str]
) -> list[str]:
    """The calibration photo read back with the ranges just sampled, as the table will read the board: a line for
    each piece found where none was laid out (the board's print, or something else on the table, in that colour:
    the table would see a piece there), and for each laid-out piece the ranges do not find. Empty: all as laid out."""
    where = Pose(np.array(pose.rvec, np.float64), np.array(pose.tvec, np.float64))
    sites = {s.id: s for s in board.sites}
    laid = [(registry.entry(entry_id), sites[site_id]) for site_id, entry_id in layout.items()]
    finder = ColourFinder(board, registry, profile)
    blobs = finder.blobs(image, where, profile.camera_matrix, profile.dist_coeffs)

    def near(blob, entry, site) -> bool:
        return blob.colour == entry.colour and math.dist((blob.x, blob.y), (site.x, site.y)) <= entry.radius

    lines = []
    for blob in blobs:
        if not any(near(blob, entry, site) for entry, site in laid):
            nearest = min(board.sites, key=lambda s: math.dist((s.x, s.y), (blob.x, blob.y)))
            lines.append(
                f"{blob.colour} is also seen where no piece was laid out, near {nearest.label or nearest.id} "
                f"({blob.x:.0f}, {blob.y:.0f} mm): the table would read a piece there; give these pieces "
                "stickers, or a colour the board does not show"
            )
    for entry, site in laid:
        if entry.colour in finder.ranges and not any(near(blob, entry, site) for blob in blobs):
            lines.append(
                f"{entry.id} on {site.label or site.id} is not found with the range sampled: photograph it "
                "again in the table's light, with the piece whole in view"
            )
    return lines


def colour_range(hsv: np.ndarray) -> ColourRange:
    """An HSV range around (n, 3) samples; hues straddling 0/180 (reds) give a wrapping range (low hue > high)."""
    hue, sat, val = (hsv[:, i].astype(np.float64) for i in range(3))
    s_low = int(max(0, np.percentile(sat, 1) - SAT_MARGIN))
    s_high = int(min(255, np.percentile(sat, 99) + SAT_MARGIN))
    # Value: light varies across the board by about two to one, so the range reaches well beyond the samples.
    v_low = int(max(0, 0.5 * np.percentile(val, 1)))
    v_high = 255
    if np.median(sat) < GREY_SATURATION:
        return ColourRange((0, s_low, v_low), (179, s_high, v_high))
    # Measure the spread with hue turned half-way round too; the narrower reading is the true one.
    best = None
    for shift in (0, 90):
        turned = (hue + shift) % 180
        low, high = np.percentile(turned, 1) - HUE_MARGIN, np.percentile(turned, 99) + HUE_MARGIN
        if best is None or high - low < best[1] - best[0]:
            best = (low - shift, high - shift)
    low, high = best
    if high - low >= 179:
        return ColourRange((0, s_low, v_low), (179, s_high, v_high))
    return ColourRange((math.floor(low) % 180, s_low, v_low), (math.ceil(high) % 180, s_high, v_high))
