"""A hand over the board, hidden corner markers and a moved board: reported as unreliable, never guessed."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from companion.sensing.vision import Vision
from companion.sim.render_camera import sim_profile
from companion.sim.render_scene import Hand, random_scene
from companion.sim.render_truth import visible


def test_pieces_under_a_hand_are_withheld_and_their_sites_flagged(board, registry, renderer, camera, match):
    vision = Vision(board, registry, sim_profile(camera, board.name))
    hidden_total = 0
    for seed in (2, 3):
        scene = random_scene(board, registry, camera, seed, hand=True)
        rendered = renderer.render(scene)
        report = vision.process(rendered.image)
        assert report.reliable
        in_view = visible(scene, rendered)
        flagged = report.unreliable_sites()
        assert any(r.reason == "occluded" for r in report.unreliable)
        seen, _ = match(report.sightings, scene.pieces)
        for piece in scene.pieces:
            if piece.entry.id in seen:
                assert seen[piece.entry.id].site == piece.site
            elif piece.site is not None:
                assert not in_view[piece.entry.id], f"{piece.entry.id} was in view but not found"
                assert piece.site in flagged, f"{piece.entry.id} hidden on {piece.site} without saying so"
                hidden_total += 1
        # Sites far from the hand stay reliable.
        assert len(flagged) < len(board.sites) / 2
    assert hidden_total >= 3


def test_hidden_corner_marker_keeps_the_pose_and_flags_its_corner(board, registry, renderer, camera, cover_marker):
    vision = Vision(board, registry, sim_profile(camera, board.name))
    scene = random_scene(board, registry, camera, 21, jitter=False)
    image = renderer.render(scene).image
    covered = cover_marker(image, camera, board.fiducials[2])
    report = vision.process(covered)
    every = tuple(f.id for f in board.fiducials)
    assert report.reliable and report.markers == tuple(i for i in every if i != 2)
    assert [r.reason for r in report.unreliable if r.reason == "corner marker hidden"] == ["corner marker hidden"]
    # All but two markers of one corner hidden: the kept pose still holds because the two agree with it.
    last = board.fiducials[3]
    kept = sorted(board.fiducials, key=lambda f: (f.x - last.x) ** 2 + (f.y - last.y) ** 2)[:2]
    for fid in board.fiducials:
        if fid not in kept:
            image = cover_marker(image, camera, fid)
    report = vision.process(image)
    assert report.reliable and report.markers == tuple(sorted(f.id for f in kept))
    assert sum(r.reason == "corner marker hidden" for r in report.unreliable) == len(board.fiducials) - len(kept)
    assert sorted((s.piece, s.site) for s in report.sightings) == sorted((p.entry.piece, p.site) for p in scene.pieces)


def test_all_corner_markers_hidden_is_unreliable(board, registry, renderer, camera, cover_marker):
    vision = Vision(board, registry, sim_profile(camera, board.name))
    image = renderer.render(random_scene(board, registry, camera, 22, jitter=False)).image
    for fid in board.fiducials:
        image = cover_marker(image, camera, fid)
    report = vision.process(image)
    assert not report.reliable and "no corner markers" in report.reason
    assert report.sightings == ()
    assert report.unreliable_sites() == {s.id for s in board.sites}


def test_a_moved_board_is_noticed(board, registry, renderer, camera, cover_marker):
    vision = Vision(board, registry, sim_profile(camera, board.name))
    first = random_scene(board, registry, camera, 31, jitter=False)
    assert not vision.process(renderer.render(first).image).moved
    shifted = camera.moved(dx=25.0, dy=-10.0, yaw_deg=2.0)
    scene = random_scene(board, registry, shifted, 31, jitter=False)
    report = vision.process(renderer.render(scene).image)
    assert report.reliable and report.moved
    truth = {(p.entry.piece, p.site) for p in scene.pieces}
    assert all((s.piece, s.site) in truth for s in report.sightings)
    assert len(report.sightings) >= len(scene.pieces) - 2  # (edge pieces may leave the frame)
    # Moved again, with only two markers in view: nothing to trust until the pose is found again.
    again = camera.moved(dx=-20.0)
    image = renderer.render(random_scene(board, registry, again, 32, jitter=False)).image
    for fid in board.fiducials[2:]:
        image = cover_marker(image, again, fid)
    report = vision.process(image)
    assert not report.reliable and report.moved and "moved" in report.reason


def test_a_white_balance_cast_is_not_a_hand(board, registry, renderer, camera):
    """Warm (tungsten) and cool (shade) casts scale the colour channels apart; the board is still the board, and
    nothing along its edges turns into a hand."""

    vision = Vision(board, registry, sim_profile(camera, board.name))
    image = renderer.render(random_scene(board, registry, camera, 41, jitter=False)).image.astype(np.float32)
    for gains in ((0.72, 1.0, 1.3), (1.3, 1.0, 0.75)):
        cast = np.clip(image * np.array(gains, np.float32), 0, 255).astype(np.uint8)
        report = vision.process(cast)
        assert report.reliable
        assert [r for r in report.unreliable if r.reason == "occluded"] == []


def _disc(x: float, y: float, r: float) -> tuple[tuple[float, float], ...]:
    return tuple((x + r * math.cos(t), y + r * math.sin(t)) for t in np.linspace(0, 2 * math.pi, 24, endpoint=False))


def test_a_crowd_lying_on_the_board_is_not_a_hand_but_an_arm_reaching_in_is(board, registry, renderer, camera):
    """A planet disc ringed with counters is as wide as a palm, but lies on the board; a hand comes at the end of an
    arm from beyond the board's edge."""
    vision = Vision(board, registry, sim_profile(camera, board.name))
    cx, cy = board.width / 2, board.height / 2
    crowd = (
        _disc(cx, cy, 32),
        *(
            _disc(cx + 40 * math.cos(a), cy + 40 * math.sin(a), 14)
            for a in np.linspace(0, 2 * math.pi, 7, endpoint=False)
        ),
    )
    base = random_scene(board, registry, camera, 4)
    lying = replace(base, hand=Hand(crowd, 2.0))
    report = vision.process(renderer.render(lying).image)
    assert not any(r.reason == "occluded" for r in report.unreliable)
    arm = ((cx, cy - 30), (board.width + 300, cy - 30), (board.width + 300, cy + 30), (cx, cy + 30))
    reaching = replace(base, hand=Hand((*crowd, arm), 2.0))
    report = vision.process(renderer.render(reaching).image)
    assert any(r.reason == "occluded" for r in report.unreliable)


def test_an_arm_over_a_board_read_before_is_told_without_decoding_a_sticker(board, registry, renderer, camera):
    """A frame that shows an arm reaching in cannot settle the board: the table asks only whether one is there (the
    occlusion check), and only of a board that stands where it was last read; one that moved is read whole."""
    vision = Vision(board, registry, sim_profile(camera, board.name))
    scene = random_scene(board, registry, camera, 2, hand=True)
    clear = renderer.render(replace(scene, hand=None)).image
    assert not vision.arm_over(clear)  # nothing read yet
    vision.process(clear)
    assert not vision.arm_over(renderer.render(replace(scene, hand=None)).image)
    reaching = renderer.render(scene).image
    assert vision.arm_over(reaching)
    assert not vision.arm_over(np.roll(reaching, 60, axis=1))  # the board pushed aside: found anew, read whole


def test_a_frame_asked_whether_an_arm_is_over_the_board_and_then_read_is_checked_for_occlusion_once(
    board, registry, renderer, camera
):
    vision = Vision(board, registry, sim_profile(camera, board.name))
    scene = random_scene(board, registry, camera, 2, hand=True)
    vision.process(renderer.render(replace(scene, hand=None)).image)
    checks = []
    find = vision._occlusion.find
    vision._occlusion.find = lambda *a: checks.append(1) or find(*a)
    clear = renderer.render(replace(scene, hand=None)).image
    assert not vision.arm_over(clear)
    vision.process(clear, 1.0, set())
    assert len(checks) == 1
    vision.process(clear.copy(), 2.0, set())  # another frame: checked afresh
    assert len(checks) == 2
