"""A piece set onto another, or lifted off a stack, changes no switch: the table tells the camera the sites the grid
feels a piece on apart from those whose switch changed, and the camera decodes those only where they look changed
since they were last decoded. Frames of a mounted camera at 12 MP under WORLD.md's optics (a shot of its own for each
frame: light, exposure, sway and noise drift between them), pieces of three games."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from companion.bench.vision_mounted import Camera, calibrated
from companion.bench.vision_spread import box_registry
from companion.boards import default_board
from companion.sensing.pieces import default_registry
from companion.sensing.vision import Vision
from companion.sensing.vision_profile import CameraProfile
from companion.sim.mounted_camera import random_mounting
from companion.sim.mounted_render import MountedRenderer
from companion.sim.mounted_scene import Piece, Table, docked, random_table

SIZE = (4056, 3040)  # the Pi HQ camera's full frame, where the table reads changes in crops


def _box(game: str):
    """A board and its box: Orbital Battle's planet map 3 with its counters (no planets), or the game's own."""
    if game == "orbital_battle":
        registry = box_registry()
        counters = tuple(e for e in registry.entries if not e.piece.startswith("planet-"))
        return default_board("orbital_battle:planet3"), replace(registry, entries=counters)
    return default_board(game), default_registry(game)


class _Table:
    """A mounted camera over a table of a game's pieces; two pipelines reading its frames: one told the occupied
    sites apart from the changed ones (as `companion serve` tells it), one decoding every occupied site."""

    def __init__(self, game: str, seed: int) -> None:
        self.board, self.registry = _box(game)
        self.rng = np.random.default_rng([33, seed])
        mounting = random_mounting(self.board, SIZE, self.rng, (0.75, 0.9), 25.0)
        self.renderer = MountedRenderer(self.board, self.registry.dictionary, mounting)
        self.camera = Camera(mounting, "world", "normal", self.rng)
        self.table = random_table(self.board, self.registry, self.rng, 14, False)
        profile = calibrated(mounting, self.rng, CameraProfile)
        self.gated, self.every = Vision(self.board, self.registry, profile), Vision(self.board, self.registry, profile)
        first = self.frame()
        self.last = self.gated.process(first, 0.0).stacks()
        assert self.every.process(first, 0.0).stacks() == self.last
        self.time = 0.0

    def frame(self) -> np.ndarray:
        return self.renderer.render(self.table, self.camera.shot(self.rng), self.rng).image[..., 1]  # (a luma plane)

    def spare(self, wanted) -> list:
        used = {p.entry.id for p in self.table.pieces}
        return [e for e in self.registry.entries if e.id not in used and e.sticker is not None and wanted(e)]

    def change(self, pieces: tuple[Piece, ...], site: str) -> tuple[set[str], dict]:
        """The table now holds `pieces`, no switch changed: the occupied sites the look check decodes, and what the
        gated pipeline reads (each site's stack), which must be what decoding every occupied site reads."""
        self.table = Table(pieces, None)
        image, self.time = self.frame(), self.time + 1.0
        held = {p.site for p in pieces if p.site is not None}
        decoded = self.gated.unlike(image, held)
        gated = self.gated.process(image, self.time, set(), held=held).stacks()
        every = self.every.process(image, self.time, held).stacks()
        assert gated == every, site
        return decoded, gated


def _lone(table: Table, wanted) -> list[Piece]:
    """Pieces alone on their sites that `wanted` takes, their stickers on top."""
    sites = [p.site for p in table.pieces]
    return [p for p in table.pieces if p.site is not None and sites.count(p.site) == 1 and wanted(p)]


@pytest.mark.parametrize("game", ["orbital_battle", "orbit", "trajectory"])
def test_a_piece_set_onto_another_and_lifted_off_again_is_read_though_no_switch_changed(game):
    """The piece set down square on the one below (its turn, its centre: the top sticker only a little larger and
    shifted, being nearer the lens) as a counter, a ship on a planet; docked beside on a planet in Trajectory. The
    sites no one touched stay unread: most of them look as they did."""
    table = _Table(game, {"orbital_battle": 1, "orbit": 2, "trajectory": 3}[game])
    rng = table.rng
    stacking = table.registry.stacking
    below = _lone(table.table, lambda p: p.entry.sticker is not None and (stacking == "on top" or p.entry.is_base))
    base = below[int(rng.integers(len(below)))]
    if game == "orbit":
        base = next(p for p in below if p.entry.is_base and p.entry.piece.startswith("planet"))
    other = table.spare(lambda e: not e.is_base and e.piece != base.entry.piece)
    entry = other[int(rng.integers(len(other)))]
    if stacking == "on top":
        top = Piece(entry, base.x, base.y, base.turn, base.top, base.site)
    else:
        rider = docked(base, entry, [], rng)
        assert rider is not None
        top = rider
    still = {p.site for p in table.table.pieces if p.site is not None} - {base.site}
    decoded, gated = table.change((*table.table.pieces, top), base.site)
    assert base.site in decoded and gated[base.site] != table.last[base.site], (base, entry)
    assert len(decoded & still) <= len(still) / 2, decoded
    decoded, gated = table.change(tuple(p for p in table.table.pieces if p is not top), base.site)
    assert base.site in decoded and gated[base.site] == table.last[base.site]


def test_a_counter_set_onto_one_of_its_own_kind_as_a_hand_leaves_it_is_decoded():
    """Two counters of one kind carry one sticker: the top one, a little off and turned as a hand leaves it, is the
    only difference the frame shows, and it is looked at again (the reading stays the kind; what is under it the
    grid's history says)."""
    table = _Table("orbital_battle", 4)
    rng = table.rng
    kinds = {e.piece for e in table.spare(lambda e: True)}  # (kinds the box has another of)
    base = next(p for p in _lone(table.table, lambda p: p.entry.sticker is not None) if p.entry.piece in kinds)
    same = table.spare(lambda e: e.piece == base.entry.piece)
    turn = base.turn + float(rng.normal(0, math.radians(8)))
    dx, dy = rng.normal(0, 0.8, 2)
    top = Piece(same[0], base.x + dx, base.y + dy, turn, base.top, base.site)
    decoded, gated = table.change((*table.table.pieces, top), base.site)
    assert base.site in decoded and gated[base.site] == table.last[base.site], base
    decoded, _ = table.change(tuple(p for p in table.table.pieces if p is not top), base.site)
    assert base.site in decoded, base


@pytest.mark.parametrize("game", ["orbit", "trajectory"])
def test_light_from_elsewhere_alone_marks_no_site_changed_but_a_piece_set_on_a_stack_still_does(game):
    """The same table lit from three other sides (its pieces' shadows moved round them, their sides shaded anew),
    each frame a shot of its own: no occupied site looks changed; under the last light, a piece set onto one does."""
    table = _Table(game, {"orbit": 5, "trajectory": 6}[game])
    held = {p.site for p in table.table.pieces if p.site is not None}
    for turn in (0.5, 1.0, 1.5):
        shot = table.camera.shot(table.rng)
        lit = replace(shot, light_azimuth=shot.light_azimuth + turn * math.pi)
        image = table.renderer.render(table.table, lit, table.rng).image[..., 1]
        assert table.gated.unlike(image, held) == set(), turn
    base = next(p for p in _lone(table.table, lambda p: p.entry.sticker is not None and p.entry.is_base))
    entry = table.spare(lambda e: not e.is_base and e.piece != base.entry.piece)[0]
    top = (
        Piece(entry, base.x, base.y, base.turn, base.top, base.site)
        if table.registry.stacking == "on top"
        else docked(base, entry, [], table.rng)
    )
    assert top is not None
    table.table = Table((*table.table.pieces, top), None)
    shot = table.camera.shot(table.rng)
    image = table.renderer.render(table.table, replace(shot, light_azimuth=shot.light_azimuth + math.pi), table.rng)
    assert base.site in table.gated.unlike(image.image[..., 1], held)
