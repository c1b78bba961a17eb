"""Frames read in crops around the sites the grid says changed: the same board as the whole frame gives."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from companion.calibration.colours import sample_colours
from companion.sensing.pieces import load_registry
from companion.sensing.vision import SWEEP_ROUNDS, Vision
from companion.sensing.vision_crops import blank_outside, distinct, site_boxes
from companion.sim.render_camera import sim_profile
from companion.sim.render_scene import random_scene

from .test_colour import scene_with_scouts


def _moved(board, scene, seed: int):
    """The scene after a hand moved one piece standing alone on a site to an empty site."""
    rng = np.random.default_rng(seed)
    stacked = {p.site for p in scene.pieces if p.level > 0}
    alone = [p for p in scene.pieces if p.site is not None and p.level == 0 and p.site not in stacked]
    piece = alone[int(rng.integers(len(alone)))]
    taken = {p.site for p in scene.pieces}
    free = [
        s for s in board.sites if s.id not in taken and all(np.hypot(s.x - p.x, s.y - p.y) > 70 for p in scene.pieces)
    ]
    site = free[int(rng.integers(len(free)))]
    moved = replace(piece, x=site.x, y=site.y, site=site.id)
    return replace(scene, pieces=tuple(moved if p is piece else p for p in scene.pieces)), {piece.site, site.id}


def _read_then_moved(board, registry, renderer, camera, seed: int, move: int):
    """A pipeline that has read a scene whole, and the scene's next frame after a hand moved a piece (`_moved`):
    the profile, the pipeline, the scene, the scene after, the sites changed and the frame."""
    profile = sim_profile(camera, board.name)
    vision = Vision(board, registry, profile)
    scene = random_scene(board, registry, camera, seed, jitter=False)
    vision.process(renderer.render(scene).image, 0.0)
    later, changed = _moved(board, scene, move)
    return profile, vision, scene, later, changed, renderer.render(later).image


def test_a_settled_change_read_in_crops_gives_the_whole_frames_board(board, registry, renderer, camera):
    profile = sim_profile(camera, board.name)
    crops, whole = Vision(board, registry, profile), Vision(board, registry, profile)
    scene = random_scene(board, registry, camera, 41, jitter=False)
    first = renderer.render(scene).image
    assert crops.process(first, 0.0).reliable and whole.process(first, 0.0).reliable
    for k in range(3):
        scene, changed = _moved(board, scene, k)
        image = renderer.render(scene).image
        a = crops.process(image, k + 1.0, changed)
        b = whole.process(image, k + 1.0)
        assert "stickers in crops" in a.timings and "stickers in crops" not in b.timings
        assert a.reliable and a.stacks() == b.stacks(), changed


def test_a_site_the_grid_did_not_report_is_caught_up_by_the_sweep(board, registry, renderer, camera):
    """A change the grid missed (a piece swapped for another of the same footprint) shows within a sweep."""
    profile, vision, _, _, _, image = _read_then_moved(board, registry, renderer, camera, 42, 5)
    truth = Vision(board, registry, profile).process(image).stacks()
    reports = [vision.process(image, 1.0 + k, set()) for k in range(SWEEP_ROUNDS)]
    assert reports[0].stacks() != truth  # nothing said the board changed: the first crops do not see it
    assert reports[-1].stacks() == truth


def test_a_moved_camera_is_read_whole(board, registry, renderer, camera):
    profile = sim_profile(camera, board.name)
    vision = Vision(board, registry, profile)
    vision.process(renderer.render(random_scene(board, registry, camera, 43, jitter=False)).image, 0.0)
    shifted = camera.moved(dx=25.0, dy=-10.0, yaw_deg=2.0)
    report = vision.process(
        renderer.render(random_scene(board, registry, shifted, 43, jitter=False)).image, 1.0, {"o1s0"}
    )
    assert report.reliable and report.moved and "stickers in crops" not in report.timings


def test_crops_overlapping_merge_and_a_sticker_read_twice_counts_once():
    ring = [np.array([[10, 10], [50, 50]]), np.array([[40, 40], [90, 90]]), np.array([[200, 200], [240, 240]])]
    assert site_boxes(ring, (300, 300)) == [(4, 4, 96, 96), (194, 194, 246, 246)]
    square = np.array([[0, 0], [20, 0], [20, 20], [0, 20]], np.float64)
    assert len(distinct([("a", square), ("a", square + 1.0), ("a", square + 40.0)])) == 2


def test_a_crop_is_searched_only_within_its_sites_reach():
    """What lies beyond every ring of a crop is blank paper to the detector; inside, the crop's own pixels."""
    crop = np.random.default_rng(3).integers(0, 200, (120, 200), dtype=np.uint8)
    angles = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    ring = np.column_stack([1050 + 30 * np.cos(angles), 2060 + 30 * np.sin(angles)])  # frame pixels
    searched = blank_outside(crop, [ring, ring + np.array([90.0, 0.0])], (1000, 2000))
    for x in (50, 140):  # inside each ring
        assert np.array_equal(searched[45:76, x - 15 : x + 16], crop[45:76, x - 15 : x + 16])
    assert (searched[60, 85:105] == 255).all()  # between them
    assert (searched[:, :15] == 255).all() and (searched[:, 185:] == 255).all() and (searched[100:] == 255).all()
    assert crop.max() < 200  # the crop itself is left as it was


def test_with_colours_calibrated_a_settled_change_stays_in_crops_and_reads_as_the_whole_frame(
    board, renderer, camera, unmarked_registry
):
    """Pieces found by colour are looked for in windows round the changed sites: a scout moved is read in crops,
    and the board read so equals the whole frame's (colour sightings included)."""
    registry = load_registry(unmarked_registry)
    profile = sim_profile(camera, board.name)
    scene = scene_with_scouts(board, registry, camera, 85)
    first = renderer.render(scene).image
    layout = {p.site: p.entry.id for p in scene.pieces if p.entry.sticker is None}
    profile = replace(profile, colours=sample_colours(first, board, registry, profile, profile.pose, layout))
    crops, whole = Vision(board, registry, profile), Vision(board, registry, profile)
    assert crops.process(first, 0.0).reliable and whole.process(first, 0.0).reliable
    rng = np.random.default_rng(3)
    for k in range(4):
        scouts = [p for p in scene.pieces if p.entry.sticker is None]
        scout = scouts[int(rng.integers(len(scouts)))]
        free = [s for s in board.sites if all(np.hypot(s.x - p.x, s.y - p.y) > 60 for p in scene.pieces)]
        site = free[int(rng.integers(len(free)))]
        moved = replace(scout, x=site.x, y=site.y, site=site.id)
        scene = replace(scene, pieces=tuple(moved if p is scout else p for p in scene.pieces))
        changed = {scout.site, site.id}
        if k % 2:  # a stickered piece moved too
            scene, more = _moved(board, scene, k)
            changed |= more
        image = renderer.render(scene).image
        a = crops.process(image, k + 1.0, changed)
        b = whole.process(image, k + 1.0)
        assert "colour in crops" in a.timings and "colour" in b.timings
        assert a.reliable and a.stacks() == b.stacks(), changed
        assert b.stacks()[site.id] == (scout.entry.piece,)


def test_a_big_frame_without_a_grid_is_read_in_crops_where_the_board_looks_changed(board, registry):
    """No grid to say where the board changed: a frame over CORNER_SEARCH_LINES high is compared site by site with
    how each looked when last read, and only the sites that changed (and the sweep's) are decoded, at full size."""
    from companion.sim.render import Renderer
    from companion.sim.render_camera import overhead_camera

    camera = overhead_camera(board.width, board.height, 2400, 1800)
    renderer = Renderer(board, registry.dictionary)
    profile = sim_profile(camera, board.name)
    alone, whole = Vision(board, registry, profile), Vision(board, registry, profile)
    scene = random_scene(board, registry, camera, 43, jitter=False)
    image = renderer.render(scene).image
    assert "stickers in crops" not in alone.process(image, 0.0, by_look=True).timings  # no look yet: read whole
    still = alone.process(image, 1.0, by_look=True)
    assert "stickers in crops" in still.timings and still.stacks() == whole.process(image).stacks()
    scene, changed = _moved(board, scene, 7)
    image = renderer.render(scene).image
    report = alone.process(image, 2.0, by_look=True)
    assert "stickers in crops" in report.timings and report.stacks() == whole.process(image).stacks(), changed


def test_what_a_pose_gives_is_kept_while_it_stands_and_dropped_when_it_changes(board, registry, camera):
    """The sites' rings and the corner markers' outlines projected through a pose are kept for the next reading
    through the same pose; through another pose they are projected afresh, as a pipeline new to it projects them."""
    from companion.sensing.vision_pose import Pose

    profile = sim_profile(camera, board.name)
    vision = Vision(board, registry, profile)
    pose = vision.pose
    moved = Pose(pose.rvec + np.array([0.0, 0.0, 0.02]), pose.tvec + np.array([12.0, -5.0, 0.0]))
    sites = [s.id for s in board.sites[:6]]

    def seen(v: Vision, p: Pose) -> list[np.ndarray]:
        return [
            *v._site_pixels(p, (720, 1280), sites),
            *v._site_pixels(p, (720, 1280), sites, wider=True),
            *v._fiducial_outlines(p, (10, 20)),
        ]

    before = seen(vision, pose)
    assert all(np.array_equal(a, b) for a, b in zip(before, seen(vision, pose), strict=True))
    after = seen(vision, moved)
    fresh = seen(Vision(board, registry, profile), moved)
    assert all(np.array_equal(a, b) for a, b in zip(after, fresh, strict=True))
    assert not any(np.allclose(a, b) for a, b in zip(before, after, strict=True))


def test_a_boards_checks_of_a_frame_serve_its_reading_of_that_frame_alone(board, registry, renderer, camera):
    """Whether a board stands and which of its stacks look changed, asked of a frame (as a table of several boards
    asks before it reads one), are not made again by its reading of the same frame; another frame's, even in the
    same array, makes its own."""
    from companion.sensing.vision import FrameMarkers

    profile, vision, scene, later, changed, image = _read_then_moved(board, registry, renderer, camera, 44, 6)
    held = {p.site for p in later.pieces if p.site is not None} - changed
    made = {"markers": 0, "looks": 0}
    markers_of, looks_of = vision._unchanged_markers, vision._unlike_now
    vision._unchanged_markers = lambda *a: made.__setitem__("markers", made["markers"] + 1) or markers_of(*a)
    vision._unlike_now = lambda *a: made.__setitem__("looks", made["looks"] + 1) or looks_of(*a)
    frame = FrameMarkers(image)
    assert vision.stands(image, frame) and vision.stands(image, frame)
    vision.unlike(image, held, frame)
    assert made == {"markers": 1, "looks": 1}
    expected = Vision(board, registry, profile)
    expected.process(renderer.render(scene).image, 0.0)
    report = vision.process(image, 1.0, changed, frame, held=held)
    assert made == {"markers": 1, "looks": 1}  # the reading took both checks as they were made
    assert report.to_json() == expected.process(image, 1.0, changed, held=held).to_json()
    assert vision.stands(image, FrameMarkers(image)) and made["markers"] == 2  # another frame: checked afresh
    vision.unlike(image, held, frame)
    assert made["looks"] == 2  # the reading changed what the looks are compared with: looked at afresh
