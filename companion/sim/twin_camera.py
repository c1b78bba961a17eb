"""The twin's camera: the physical board rendered as the camera over the table would see it, read by the real vision.

Each piece of the layout is matched to a physical piece of the game's registry (pieces of one kind are
interchangeable), set on its site with a little slop and a random turn; a stack's bottom piece is the base the others
dock on. The frame goes through the same Vision the hardware uses, and what comes out is what the observer gets.
"""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np

from companion.boards import Board
from companion.rules.engine import Layout
from companion.sensing.pieces import PieceEntry, Registry
from companion.sensing.vision import Vision
from companion.sim.render import Renderer
from companion.sim.render_camera import NORMAL, Conditions, overhead_camera, sim_profile
from companion.sim.render_scene import Placed, Scene, docked
from companion.table.observe import CameraView, camera_view


class TwinCamera:
    def __init__(
        self,
        board: Board,
        registry: Registry,
        seed: int = 1,
        size: tuple[int, int] = (1280, 720),
        conditions: Conditions = NORMAL,
    ) -> None:
        self.board = board
        self.registry = registry
        self.camera = overhead_camera(board.width, board.height, *size)
        self.renderer = Renderer(board, registry.dictionary, registry.sticker_mm)
        self.vision = Vision(board, registry, sim_profile(self.camera, board.name))
        self.conditions = conditions
        self.rng = np.random.default_rng(seed)
        self.frames = 0
        self._sites = {site.id for site in board.sites}
        cv2.setNumThreads(1)  # leave the other core to the table's loop

    def covers(self, layout: Layout) -> bool:
        """True if the registry has a physical piece for every piece the layout can hold at once."""
        return _entries(layout, self.registry) is not None

    def look(self, layout: Layout, now: float) -> CameraView:
        """One frame of the board as `layout` has it, taken at `now`, through the real vision."""
        entries = _entries(layout, self.registry)
        if entries is None:
            raise ValueError("the piece registry has no physical piece for some piece of the layout")
        placed: list[Placed] = []
        deep = set()  # stacks taller than a base and two riders: the camera cannot see the lower riders
        for site_id, pieces in layout.items():
            if not pieces or site_id not in self._sites:
                continue
            site = self.board.site(site_id)
            dx, dy = self.rng.uniform(-2.5, 2.5, 2)
            angle = float(self.rng.uniform(0, 2 * math.pi))
            base = Placed(entries[site_id][0], site.x + dx, site.y + dy, angle, 0.0, site_id, 0)
            placed.append(base)
            placed.extend(docked(base, list(entries[site_id][1:3]), self.rng))
            if len(pieces) > 3:
                deep.add(site_id)
        scene = Scene(self.board, self.camera, tuple(placed), self.conditions, None, int(self.rng.integers(1 << 30)))
        report = self.vision.process(self.renderer.render(scene).image, now)
        self.frames += 1
        view = camera_view(report, self.registry)
        return replace(view, unreliable=view.unreliable | deep)


def _entries(layout: Layout, registry: Registry) -> dict[str, tuple[PieceEntry, ...]] | None:
    """A distinct physical piece for each piece of the layout, per site bottom to top; None if the box runs out."""
    free: dict[str, list[PieceEntry]] = {}
    for entry in registry.entries:
        if entry.sticker is not None:
            free.setdefault(entry.piece, []).append(entry)
    out = {}
    for site, pieces in layout.items():
        chosen = []
        for piece in pieces:
            if not free.get(piece):
                return None
            chosen.append(free[piece].pop())
        out[site] = tuple(chosen)
    return out
