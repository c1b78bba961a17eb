"""What a rendered frame truly shows: which pieces' stickers are in view, not under the hand nor under a piece."""

from __future__ import annotations

import math

import numpy as np

from companion.sim.render import Rendered
from companion.sim.render_scene import Placed, Scene, local_axes

EDGE_PX = 3  # a sticker this close to the frame's edge counts as out of view


def sticker_corners(piece: Placed) -> np.ndarray:
    """The sticker's four corners in board mm at the top of the piece."""
    ax, ay = local_axes(piece.angle)
    centre = np.array([piece.x, piece.y]) - piece.entry.sticker_offset * ay
    h = piece.entry.sticker_mm / 2
    z = piece.z0 + piece.entry.height
    return np.array([(*(centre + u * ax + v * ay), z) for u, v in ((-h, h), (h, h), (h, -h), (-h, -h))])


def covered(scene: Scene, piece: Placed) -> bool:
    """True when a piece standing on this one hides the middle of its sticker (ORBIT's ship on a planet)."""
    centre = sticker_corners(piece)[:, :2].mean(axis=0)
    top = piece.z0 + piece.entry.height
    return any(
        other.z0 >= top - 0.5
        and math.dist((other.x, other.y), centre) < other.entry.radius * math.cos(math.pi / other.entry.sides)
        for other in scene.pieces
        if other is not piece
    )


def visible(scene: Scene, rendered: Rendered) -> dict[str, bool]:
    """Entry id -> whether the camera can see the piece's whole sticker."""
    cam = scene.camera
    out = {}
    for piece in scene.pieces:
        if piece.entry.sticker is None:
            continue
        px = cam.project(sticker_corners(piece))
        inside = bool(np.all((px >= EDGE_PX) & (px < np.array([cam.width, cam.height]) - EDGE_PX)))
        inside = inside and not covered(scene, piece)
        if inside and rendered.hand_mask is not None:
            xs = np.clip(px[:, 0].round().astype(int), 0, cam.width - 1)
            ys = np.clip(px[:, 1].round().astype(int), 0, cam.height - 1)
            centre = px.mean(axis=0).round().astype(int)
            inside = not (rendered.hand_mask[ys, xs].any() or rendered.hand_mask[centre[1], centre[0]])
        out[piece.entry.id] = inside
    return out


def match_sightings(sightings, pieces, within_mm: float = 20.0) -> tuple[dict, list]:
    """Pieces of a kind share a sticker, so a sighting names a kind, not a piece: each placed piece (its entry id)
    -> the sighting of its kind nearest to it (within `within_mm`), and the sightings no piece accounts for.
    Sightings and pieces are anything with `piece`, `x`, `y` and `entry`, `x`, `y`."""
    pairs = sorted(
        (math.hypot(s.x - p.x, s.y - p.y), i, j)
        for i, p in enumerate(pieces)
        for j, s in enumerate(sightings)
        if s.piece == p.entry.piece
    )
    matched: dict = {}
    used: set[int] = set()
    for distance, i, j in pairs:
        if distance > within_mm or j in used or pieces[i].entry.id in matched:
            continue
        matched[pieces[i].entry.id] = sightings[j]
        used.add(j)
    return matched, [s for j, s in enumerate(sightings) if j not in used]
