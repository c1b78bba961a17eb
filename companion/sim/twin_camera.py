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

    def render(self, layout: Layout) -> tuple[np.ndarray, frozenset[str]]:
        """The camera's picture of the board as `layout` has it, and the sites it cannot show whole: stacks taller
        than a base and two riders, and pieces the box (the registry) has no physical piece for."""
        entries = _entries(layout, self.registry)
        placed: list[Placed] = []
        hidden = set()
        for site_id, pieces in layout.items():
            if not pieces or site_id not in self._sites:
                continue
            chosen = entries.get(site_id, ())
            if len(chosen) < len(pieces) or len(pieces) > 3:
                hidden.add(site_id)
            if not chosen:
                continue
            site = self.board.site(site_id)
            dx, dy = self.rng.uniform(-2.5, 2.5, 2)
            angle = float(self.rng.uniform(0, 2 * math.pi))
            base = Placed(chosen[0], site.x + dx, site.y + dy, angle, 0.0, site_id, 0)
            placed.append(base)
            placed.extend(docked(base, list(chosen[1:3]), self.rng))
        scene = Scene(self.board, self.camera, tuple(placed), self.conditions, None, int(self.rng.integers(1 << 30)))
        return self.renderer.render(scene).image, frozenset(hidden)

    def look(self, layout: Layout, now: float) -> CameraView:
        """One frame of the board as `layout` has it, taken at `now`, through the real vision."""
        image, hidden = self.render(layout)
        report = self.vision.process(image, now)
        self.frames += 1
        view = camera_view(report, self.registry)
        return replace(view, unreliable=view.unreliable | hidden)


def _entries(layout: Layout, registry: Registry) -> dict[str, tuple[PieceEntry, ...]]:
    """A distinct physical piece for each piece of the layout, per site bottom to top, while the box has one."""
    free: dict[str, list[PieceEntry]] = {}
    for entry in registry.entries:
        if entry.sticker is not None:
            free.setdefault(entry.piece, []).append(entry)
    return {site: tuple(free[p].pop() for p in pieces if free.get(p)) for site, pieces in layout.items()}
