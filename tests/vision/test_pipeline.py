"""The camera pipeline on rendered scenes: identities, sites, stacks, positions; the renderer is deterministic."""

from __future__ import annotations

import math

import numpy as np

from companion.sensing.vision import Vision
from companion.sim.render_camera import HARSH, sim_profile
from companion.sim.render_scene import random_scene
from companion.sim.render_truth import visible


def test_renderer_is_deterministic_by_seed(board, registry, renderer, camera):
    a = renderer.render(random_scene(board, registry, camera, 5, HARSH, hand=True)).image
    b = renderer.render(random_scene(board, registry, camera, 5, HARSH, hand=True)).image
    c = renderer.render(random_scene(board, registry, camera, 6, HARSH, hand=True)).image
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_every_piece_found_on_its_site_with_stacks_in_order(board, registry, renderer, camera, match):
    vision = Vision(board, registry, sim_profile(camera, board.name))
    for seed in (11, 12, 13):
        scene = random_scene(board, registry, camera, seed)
        rendered = renderer.render(scene)
        report = vision.process(rendered.image, 1.5)
        assert report.reliable, report.reason
        in_view = visible(scene, rendered)
        seen, extra = match(report.sightings, scene.pieces)
        assert not extra, "a piece that is not there"
        for piece in scene.pieces:
            if not in_view[piece.entry.id]:
                continue
            sighting = seen[piece.entry.id]
            assert sighting.piece == piece.entry.piece
            assert sighting.site == piece.site
            assert sighting.level == piece.level
            assert math.hypot(sighting.x - piece.x, sighting.y - piece.y) < 3.0
            assert sighting.time == 1.5 and 0 < sighting.confidence <= 1
        # Stacks bottom to top, named as the rules engine names them: the base first.
        for site, pieces in report.stacks().items():
            truth = sorted(
                (p for p in scene.pieces if p.site == site and in_view[p.entry.id]),
                key=lambda p: (p.level, p.entry.piece),
            )
            assert list(pieces) == [p.entry.piece for p in truth]
        assert any(len(pieces) > 1 for pieces in report.stacks().values())


def test_height_correction_matters(board, registry, renderer, camera):
    """Traced at board level instead of the piece's top, a tall piece far from the centre lands millimetres off."""
    from companion.sensing.vision_pose import Pose

    scene = random_scene(board, registry, camera, 11, jitter=False)
    pose = Pose(np.array(camera.rvec), np.array(camera.tvec))
    far = max((p for p in scene.pieces if p.level == 1), key=lambda p: math.hypot(p.x - 300, p.y - 300))
    top = np.array([[far.x, far.y, far.z0 + far.entry.height]])
    pixel = camera.project(top)
    at_top = pose.to_board(pixel, far.z0 + far.entry.height, camera.matrix, camera.distortion)[0]
    flat = pose.to_board(pixel, 0.0, camera.matrix, camera.distortion)[0]
    assert math.hypot(*(at_top - (far.x, far.y))) < 0.1
    assert math.hypot(*(flat - (far.x, far.y))) > 4.0


def test_a_rider_whose_base_was_not_read_is_placed_by_its_own_sticker(board, registry, renderer, camera):
    """A ship docked on a planet whose sticker is torn off: the ship's own sticker puts it on the planet's site. Set
    on the planet's rim where a base on the next site would reach under it too, it could be docked on either: it
    is put on neither, and both are left unread."""
    from dataclasses import replace

    from companion.sim.render_scene import Placed, Scene

    vision = Vision(board, registry, sim_profile(camera, board.name))
    a, b = board.site("o1s1"), board.site("o2s2")  # the closest two sites, 54 mm apart
    bare = replace(registry.kind("planet-metal"), sticker=None)
    ship = registry.kind("ship-red")
    towards = np.array([b.x - a.x, b.y - a.y]) / math.dist((a.x, a.y), (b.x, b.y))
    for offset, site, unread in ((8.0, "o1s1", set()), (27.0, None, {"o1s1", "o2s2"})):
        x, y = np.array([a.x, a.y]) + offset * towards
        pieces = (Placed(bare, a.x, a.y, 0.0, 0.0, "o1s1"), Placed(ship, float(x), float(y), 0.3, bare.height))
        report = vision.process(renderer.render(Scene(board, camera, pieces)).image)
        assert [(s.piece, s.site) for s in report.sightings] == ([("ship-red", site)] if site else [])
        assert unread <= report.unreliable_sites()
