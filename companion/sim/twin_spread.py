"""The twin's camera over a table of several boards: Orbital Battle's solar map with planet maps laid beside it.

The table is drawn by the mounted camera's model (mounted_scene.py, mounted_render.py: written against the world,
not the pipeline) from the twin's own description of the box (sim/pieces_orbital_battle.json, the counters as a
table that printed the companion's stickers has them), and read by the product's TableVision with the product's
registry, as `companion serve` reads a real table. The players lay a planet map beside the solar map when pieces
first come onto it, in one of the places beside the solar map, and leave it there; a planet map with no place left
stays in the box (its sites are out of view: unknown to the camera, never empty). The camera hangs over the solar
map and those places, square to the table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from importlib import resources

import cv2
import numpy as np

from companion.boards import Board, default_board
from companion.rules.engine import Layout
from companion.sensing.pieces import Registry, load_registry
from companion.sensing.vision_profile import CameraProfile
from companion.sensing.vision_table import BoardInView, TableVision
from companion.sim.lying import Lying
from companion.sim.mounted_camera import Mounting, mount, random_shot
from companion.sim.mounted_render import MountedRenderer
from companion.sim.mounted_scene import Placement, Spread, Table, layout_table, random_arm
from companion.sim.twin_camera import box_piece
from companion.table.beside import Placed, boards_beside, layout_prefix
from companion.table.observe import CameraView, camera_view

PLACES = 2  # planet maps beside the solar map under the twin's camera (the home worlds, in a game's first turns)
GAP_MM = 30.0  # between the solar map and the column of planet maps, and between two planet maps
SIDES = ("red", "blue")  # the box's two counter sets: the first player named takes the red ones


@dataclass(frozen=True)
class Beside:
    """A board beside the game's own with no grid under it: the layout's prefix for its sites."""

    board: Board
    prefix: str


def boards_in_view(game: str) -> list[Beside]:
    """The boards the game places beside its own, as the camera looks for them."""
    return [Beside(default_board(spec), layout_prefix(game, spec)) for spec in boards_beside(game)]


def twin_box() -> Registry:
    """The twin's Orbital Battle box (its own description, not the product's registry)."""
    return load_registry(resources.files("companion.sim").joinpath("pieces_orbital_battle.json"))


def mounting_profile(cam: Mounting) -> CameraProfile:
    """The profile a good calibration of this camera gives: its intrinsics, no board pose (each board is found by its
    own markers)."""
    return CameraProfile(
        f"twin-{cam.height}p",
        (cam.width, cam.height),
        ((cam.f, 0.0, cam.cx), (0.0, cam.f, cam.cy), (0.0, 0.0, 1.0)),
        (cam.k1, cam.k2, 0.0, 0.0, 0.0),
    )


class SpreadCamera:
    """The rendered camera over the game's board and `places` planet maps beside it, read by TableVision."""

    def __init__(
        self,
        board: Board,
        beside: Sequence[Placed],
        registry: Registry,
        players: Sequence[str],
        seed: int = 1,
        places: int = PLACES,
        size: tuple[int, int] = (2048, 1536),
    ) -> None:
        """`registry`: the product's, which the vision reads with; `players`: the game's, in the order named."""
        if not beside:
            raise ValueError("a spread camera needs boards beside the game's own")
        self.board = board
        self.beside = list(beside)
        self.registry = registry
        self.box = twin_box()
        self.physical = box_piece(players, SIDES)
        self.names = registry.seated(players)
        self.rng = np.random.default_rng([seed, 31])
        height = max(b.board.height for b in self.beside)
        self.places = [
            Placement(self.beside[0].board, board.width + GAP_MM, k * (height + GAP_MM), 0.0) for k in range(places)
        ]
        whole = Spread(
            (
                Placement(board, 0.0, (len(self.places) * (height + GAP_MM) - GAP_MM - board.height) / 2, 0.0),
                *self.places,
            )
        )
        self.solar = whole.placements[0]
        self.cam = mount(whole, size, 0.94, 0.0, 0.0, 0.0, 60.0, -0.05, 0.01)
        self.renderer = MountedRenderer(whole, self.box.dictionary, self.cam)
        boards = [BoardInView(board), *(BoardInView(b.board, b.prefix) for b in self.beside)]
        self.vision = TableVision(boards, registry, mounting_profile(self.cam))
        self.sites = frozenset(
            [*(s.id for s in board.sites), *(b.prefix + s.id for b in self.beside for s in b.board.sites)]
        )
        identifies = self.vision.visions[0].identifies
        # The layout's names of the pieces the camera tells apart (None: every piece).
        self.pieces = None if identifies is None else frozenset(self.names.get(p, p) for p in identifies)
        self._stacks: dict[str, Lying] = {}  # each board's stacks as its last frame showed them
        self.laid: list[Placed | None] = []  # the planet map in each place (None: the place is empty)
        self.frames = 0
        cv2.setNumThreads(1)  # leave the other core to the table's loop

    def _lay_out(self, layout: Layout) -> None:
        self.laid = self._laid_for(layout)

    def _laid_for(self, layout: Layout) -> list[Placed | None]:
        """The maps on the table once the players have set `layout` out: a planet map none of whose hexes holds a
        piece goes back in the box; one with pieces comes out into a free place (a player makes room for the map
        where the pieces are)."""

        def used(other: Placed) -> bool:
            return any(pieces and site.startswith(other.prefix) for site, pieces in layout.items())

        laid = [other if other is not None and used(other) else None for other in self.laid]
        laid += [None] * (len(self.places) - len(laid))
        for other in self.beside:
            if other not in laid and used(other) and None in laid:
                laid[laid.index(None)] = other
        return laid

    def out_of_view(self, layout: Layout) -> frozenset[str]:
        """The sites of the maps that would stay in the box with `layout` on the table (the camera cannot see them)."""
        laid = self._laid_for(layout)
        return frozenset(b.prefix + s.id for b in self.beside if b not in laid for s in b.board.sites)

    def render(self, layout: Layout, arm: str | None = None) -> tuple[np.ndarray, frozenset[str]]:
        """The frame of the table as `layout` has it (an arm reaching in over the site `arm` names, on whichever
        board it lies), and the sites it cannot show whole (pieces the box lacks)."""
        self._lay_out(layout)
        placements, prefixes = [self.solar], [""]
        tables: list[Table] = []
        table, hidden = layout_table(self.board, self.box, layout, self.rng, self.physical, self._lying(self.board))
        tables.append(table)
        for place, other in zip(self.places, self.laid, strict=True):
            if other is None:
                continue
            own = {
                site.removeprefix(other.prefix): pieces
                for site, pieces in layout.items()
                if site.startswith(other.prefix)
            }
            table, missing = layout_table(other.board, self.box, own, self.rng, self.physical, self._lying(other.board))
            placements.append(Placement(other.board, place.x, place.y, place.turn))
            prefixes.append(other.prefix)
            tables.append(table)
            hidden |= {other.prefix + site for site in missing}
        if arm is not None:  # the hand over the site it takes a piece from or sets one on, on whichever board
            over = _site_on_table(arm, list(zip(prefixes, placements, strict=True)))
            tables[0] = replace(tables[0], arm=random_arm(self.board, self.rng, over))
        shot = random_shot("normal", self.rng)
        frame = self.renderer.render_spread(tuple(tables), shot, self.rng, Spread(tuple(placements)))
        return frame.image, frozenset(hidden)

    def touched(self, layout: Layout) -> None:
        """The hands left `layout` on the table with no frame taken of it (Lying.touched), each board's own sites."""
        self._lying(self.board).touched(layout)
        for other in self.beside:
            own = {site.removeprefix(other.prefix): p for site, p in layout.items() if site.startswith(other.prefix)}
            self._lying(other.board).touched(own)

    def _lying(self, board: Board) -> Lying:
        """The stacks `board`'s last frame showed (a map back in the box shows none)."""
        return self._stacks.setdefault(board.name, Lying())

    def look(self, layout: Layout, now: float, arm: str | None = None) -> CameraView:
        """One frame of the table as `layout` has it, taken at `now` (an arm over the board if `arm` names a site),
        through the product's TableVision."""
        image, hidden = self.render(layout, arm)
        report = self.vision.process(image, now)
        self.frames += 1
        view = camera_view(report, self.registry, self.board, self.names)
        return replace(view, unreliable=view.unreliable | hidden)


def _site_on_table(site_id: str, boards: Sequence[tuple[str, Placement]]) -> tuple[float, float] | None:
    """Where the layout's site `site_id` lies on the table (mm), among `boards` laid out (each with the prefix the
    layout gives its sites; the game board's is empty, so it comes last); None when no board laid out has it."""
    for prefix, placement in sorted(boards, key=lambda b: -len(b[0])):
        own = site_id.removeprefix(prefix)
        if site_id.startswith(prefix) and placement.board.has_site(own):
            site = placement.board.site(own)
            x, y, _ = placement.matrix() @ (site.x, site.y, 1.0)
            return float(x), float(y)
    return None


def spread_size(
    board: Board, beside: Sequence[Placed], places: int, sticker_mm: float, least_px: float = 20.0, fill: float = 0.94
) -> tuple[int, int]:
    """A 4:3 frame in which the camera square over the spread sees a sticker at least `least_px` wide."""
    height = max(b.board.height for b in beside)
    wide = board.width + GAP_MM + max(b.board.width for b in beside)
    tall = max(board.height, places * (height + GAP_MM) - GAP_MM)
    px_mm = least_px / sticker_mm
    rows = math.ceil(max(tall, wide * 3 / 4) * px_mm / fill / 8) * 8
    return rows * 4 // 3, rows
