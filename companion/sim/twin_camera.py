"""The twin's camera: the physical board rendered as the camera over the table would see it, read by the real vision.

Each piece of the layout is matched to a physical piece of the game's registry (render_scene.layout_scene: pieces of
one kind are interchangeable), set on its site with a little slop and a random turn; a stack's bottom piece carries
the others. The frame goes through the same Vision the hardware uses, and what comes out is what the observer gets.
The frame is as large as the game's stickers need (render_camera.frame_size: 720p for Trajectory, 1080p for ORBIT).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np

from companion.boards import Board
from companion.rules.engine import Layout
from companion.sensing.pieces import Registry
from companion.sensing.vision import Vision
from companion.sim.render import Renderer
from companion.sim.render_camera import NORMAL, Conditions, SimCamera, frame_size, overhead_camera, sim_profile
from companion.sim.render_scene import layout_scene, random_hand
from companion.table.observation import same_piece
from companion.table.observe import CameraView, camera_view


class TwinCamera:
    def __init__(
        self,
        board: Board,
        registry: Registry,
        seed: int = 1,
        size: tuple[int, int] | None = None,
        conditions: Conditions = NORMAL,
        physical: Callable[[str], str] = same_piece,
        camera: SimCamera | None = None,
    ) -> None:
        """`size`: the frame's (default: frame_size for the board and the stickers); `physical`: the piece in the box
        a layout name stands for (Game.physical_piece); `camera`: the camera as it hangs (default: one over this
        board's middle, the board filling the frame's height), the same camera when another board is laid under it."""
        self.board = board
        self.registry = registry
        self.camera = camera or overhead_camera(
            board.width, board.height, *(size or frame_size(board.height, registry.sticker_mm))
        )
        self.renderer = Renderer(board, registry.dictionary)
        self.vision = Vision(board, registry, sim_profile(self.camera, board.name))
        self.conditions = conditions
        self.physical = physical
        self.rng = np.random.default_rng(seed)
        self.frames = 0
        self.sites = frozenset(site.id for site in board.sites)  # the sites it looks at
        self.pieces = self.vision.identifies  # the piece names it tells apart (None: every piece)
        cv2.setNumThreads(1)  # leave the other core to the table's loop

    def out_of_view(self, layout: Layout) -> frozenset[str]:
        """Sites the camera cannot see with `layout` on the table: none (it hangs over the whole board)."""
        return frozenset()

    def render(self, layout: Layout, arm: str | None = None) -> tuple[np.ndarray, frozenset[str]]:
        """The camera's picture of the board as `layout` has it (a hand over the site `arm`, if given), and the sites
        it cannot show whole (pieces the box, the registry, has none of; more riders than dock beside a base)."""
        scene, hidden = layout_scene(
            self.board, self.registry, self.camera, layout, self.rng, self.conditions, self.physical
        )
        if arm is not None and self.board.has_site(arm):
            site = self.board.site(arm)
            scene = replace(scene, hand=random_hand(self.board, self.rng, (site.x, site.y)))
        return self.renderer.render(scene).image, hidden

    def look(self, layout: Layout, now: float, arm: str | None = None) -> CameraView:
        """One frame of the board as `layout` has it, taken at `now` (a hand over the site `arm`, if given), through
        the real vision."""
        image, hidden = self.render(layout, arm)
        report = self.vision.process(image, now)
        self.frames += 1
        view = camera_view(report, self.registry, self.board)
        return replace(view, unreliable=view.unreliable | hidden, beyond=view.beyond - hidden)
