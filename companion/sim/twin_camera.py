"""The twin's camera: the physical board rendered as the camera over the table would see it, read by the real vision.

Each piece of the layout is matched to a physical piece of the game's registry (render_scene.layout_scene: pieces of
one kind are interchangeable), set on its site with a little slop and a random turn; a stack's bottom piece carries
the others. The frame goes through the same Vision the hardware uses, and what comes out is what the observer gets.
The frame is as large as the game's stickers need (render_camera.frame_size: 720p for Trajectory, 1080p for ORBIT).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import cv2
import numpy as np

from companion.boards import Board
from companion.rules.engine import Layout
from companion.sensing.pieces import Registry
from companion.sensing.vision import Vision
from companion.sim.lying import Lying
from companion.sim.render import Renderer
from companion.sim.render_camera import NORMAL, Conditions, SimCamera, frame_size, overhead_camera, sim_profile
from companion.sim.render_scene import layout_scene, random_hand
from companion.table.observation import same_piece
from companion.table.observe import CameraView, camera_view


def box_piece(players: Sequence[str], sides: Sequence[str]) -> Callable[[str], str]:
    """The piece in the box a layout name stands for where each player plays a set of the box's (`sides`, as the
    players choose them at the table): a player named for a side takes their own, the others the sets left, in order
    (Orbital Battle's first player named plays red, the second blue)."""
    own = [p for p in players if p in sides]
    side = {p: p for p in own} | dict(
        zip([p for p in players if p not in own], [s for s in sides if s not in own], strict=False)
    )

    def piece(name: str) -> str:
        head, _, owner = name.rpartition("-")
        return f"{head}-{side[owner]}" if head and owner in side else name

    return piece


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
        players: Sequence[str] = (),
    ) -> None:
        """`size`: the frame's (default: frame_size for the board and the stickers); `physical`: the piece in the box
        a layout name stands for (Game.physical_piece); `camera`: the camera as it hangs (default: one over this
        board's middle, the board filling the frame's height), the same camera when another board is laid under it;
        `players`: the game's, in the order named, who play the box's sets of pieces (the registry's seats)."""
        self.board = board
        self.registry = registry
        self.camera = camera or overhead_camera(
            board.width, board.height, *(size or frame_size(board.height, registry.sticker_mm))
        )
        self.renderer = Renderer(board, registry.dictionary)
        self.vision = Vision(board, registry, sim_profile(self.camera, board.name))
        self.conditions = conditions
        seat = box_piece(players, registry.seats)
        self.physical = lambda name: seat(physical(name))
        self.names = registry.seated(players)  # the box's names -> the layout's, as the table names them
        self.rng = np.random.default_rng(seed)
        self.frames = 0
        self.lying = Lying()  # the stacks as its last frame showed them: what no hand touched lies as it lay
        self.sites = frozenset(site.id for site in board.sites)  # the sites it looks at
        identifies = self.vision.identifies
        # The layout's names of the pieces it tells apart (None: every piece).
        self.pieces = None if identifies is None else frozenset(self.names.get(p, p) for p in identifies)
        cv2.setNumThreads(1)  # leave the other core to the table's loop

    def touched(self, layout: Layout) -> None:
        """The hands left `layout` on the table with no frame taken of it (Lying.touched)."""
        self.lying.touched(layout)

    def out_of_view(self, layout: Layout) -> frozenset[str]:
        """Sites the camera cannot see with `layout` on the table: none (it hangs over the whole board)."""
        return frozenset()

    def render(self, layout: Layout, arm: str | None = None) -> tuple[np.ndarray, frozenset[str]]:
        """The camera's picture of the board as `layout` has it (a hand over the site `arm`, if given), and the sites
        it cannot show whole (pieces the box, the registry, has none of; more riders than dock beside a base)."""
        scene, hidden = layout_scene(
            self.board, self.registry, self.camera, layout, self.rng, self.conditions, self.physical, self.lying
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
        view = camera_view(report, self.registry, self.board, self.names)
        return replace(view, unreliable=view.unreliable | hidden, beyond=view.beyond - hidden)
