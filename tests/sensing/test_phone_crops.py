"""A phone's crops: where the table can read a settled change in crops, it asks the phone for them (and the whole
picture shrunk) instead of a 12 MP JPEG, and reads them as it reads the whole frame; crops of another length or for
an older plan change nothing, and a board that moved has the next picture asked for whole."""

from __future__ import annotations

import math

import numpy as np
import pytest

from companion.bench.vision_mounted import calibrated, score
from companion.boards import default_board
from companion.errors import UserError
from companion.sensing.pieces import default_registry
from companion.sensing.pushed import PushedFrames, StalePlan
from companion.sensing.vision import Vision
from companion.sensing.vision_crops import compose
from companion.sensing.vision_profile import CameraProfile
from companion.sim.mounted_camera import random_mounting, random_shot
from companion.sim.mounted_render import MountedRenderer
from companion.sim.mounted_scene import Table, docked, random_table
from companion.sim.phone_crops import cut

SIZE = (1920, 1080)


def _scene(game: str, seed: int, fill: tuple[float, float], pieces: int):
    """A mounted camera over a random table of `game`: board, registry, generator, mounting, renderer, table, shot."""
    board, registry = default_board(game), default_registry(game)
    rng = np.random.default_rng([33, seed])
    mounting = random_mounting(board, SIZE, rng, fill, 10.0)
    renderer = MountedRenderer(board, registry.dictionary, mounting)
    before = random_table(board, registry, rng, pieces, False)
    return board, registry, rng, mounting, renderer, before, random_shot("normal", rng)


@pytest.fixture(scope="module")
def moved():
    """A Trajectory table as a mounted camera sees it, then the same table with one piece taken off its site."""
    board, registry, rng, mounting, renderer, before, shot = _scene("trajectory", 4, (0.85, 0.95), 18)
    alone = [p for p in before.pieces if p.site is not None and [q.site for q in before.pieces].count(p.site) == 1]
    taken = next(p for p in alone if p.entry.sticker is not None)
    after = Table(tuple(p for p in before.pieces if p is not taken), before.arm)
    first = renderer.render(before, shot, rng)
    second = renderer.render(after, shot, rng)
    profile = calibrated(mounting, rng, CameraProfile)
    return board, registry, profile, first, second, taken.site, (renderer, after)


def test_a_change_read_from_a_phones_crops_reads_as_the_whole_frame(moved):
    board, registry, profile, first, second, site, _ = moved
    crops, framed = Vision(board, registry, profile), Vision(board, registry, profile)
    assert crops.crop_plan({site}) is None  # nothing read yet: the whole picture first
    crops.process(first.image)
    framed.process(first.image)
    plan = crops.crop_plan({site})
    assert plan is not None and site in plan.read
    area = sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in plan.boxes)
    assert plan.nbytes() < SIZE[0] * SIZE[1] / 4 and area < SIZE[0] * SIZE[1] / 8  # a fraction of the picture
    image, cropped = compose(plan, cut(second.image, plan))
    report = crops.process(image, 1.0, cropped=cropped)
    results, false = score(report, second.truth, {s.id for s in board.sites})
    assert report.reliable and false == 0 and all(outcome == "read" for _, outcome in results), results
    assert not any(s.site == site for s in report.sightings)  # the piece taken off is gone
    # What the whole frame read in crops round the same sites shows, sighting for sighting; the whole frame's pieces.
    assert report.sightings == framed.process(second.image, 1.0, {site}).sightings
    whole = Vision(board, registry, profile).process(second.image)
    assert {(s.piece, s.site, s.level) for s in report.sightings} == {
        (s.piece, s.site, s.level) for s in whole.sightings
    }


def test_a_rider_docked_where_no_switch_changed_is_read_from_the_crops_where_its_crop_looks_changed():
    """The plan asks for every occupied site's crop (whether a stack changed only its pixels can say); the table
    decodes the crops of those that look changed: a rider docked on a base is read there, as the whole frame reads
    it."""
    board, registry, rng, mounting, renderer, before, shot = _scene("trajectory", 5, (0.85, 0.95), 14)
    sites = [p.site for p in before.pieces]
    base = next(
        p for p in before.pieces if p.entry.is_base and p.entry.sticker is not None and sites.count(p.site) == 1
    )
    used = {p.entry.id for p in before.pieces}
    entry = next(e for e in registry.entries if not e.is_base and e.sticker is not None and e.id not in used)
    rider = docked(base, entry, [], rng)
    assert rider is not None
    after = Table((*before.pieces, rider), None)
    profile = calibrated(mounting, rng, CameraProfile)
    crops = Vision(board, registry, profile)
    crops.process(renderer.render(before, shot, rng).image)
    held = {p.site for p in before.pieces if p.site is not None}
    plan = crops.crop_plan(held)
    assert plan is not None and held <= plan.read
    second = renderer.render(after, shot, rng).image
    image, cropped = compose(plan, cut(second, plan))
    report = crops.process(image, 1.0, cropped=cropped, held=held)
    whole = Vision(board, registry, profile).process(second)
    assert report.stacks()[base.site] == whole.stacks()[base.site] == (base.entry.piece, entry.piece)


def test_crops_of_another_length_or_an_older_plan_change_nothing(moved):
    board, registry, profile, first, second, site, _ = moved
    vision = Vision(board, registry, profile)
    vision.process(first.image)
    phone = PushedFrames(lambda: True, size=SIZE, colour=False, planner=lambda: vision.crop_plan({site}))
    still, (number, plan) = phone.wanted()
    body = cut(second.image, plan)
    with pytest.raises(UserError, match=f"the crops: {len(body) - 1} bytes where the table asked for {len(body)}"):
        phone.push_crops(number, body[:-1])
    with pytest.raises(StalePlan):
        phone.push_crops(number + 1, body)
    assert still and phone.wants_still()  # nothing taken: still wanted
    phone.wanted()  # asked again: the first plan is no longer waited for
    with pytest.raises(StalePlan):
        phone.push_crops(number, body)
    _, (number, plan) = phone.wanted()
    phone.push_crops(number, cut(second.image, plan))
    frame = phone.read()
    assert frame.cropped is not None and frame.cropped.plan == plan and not phone.wants_still()


def test_a_board_moved_under_the_crops_has_the_next_picture_asked_for_whole(moved):
    board, registry, profile, first, second, site, _ = moved
    vision = Vision(board, registry, profile)
    vision.process(first.image)
    plan = vision.crop_plan({site})
    shifted = np.roll(second.image, (25, 40), axis=(0, 1))  # the board pushed across the table
    image, cropped = compose(plan, cut(shifted, plan))
    report = vision.process(image, 1.0, cropped=cropped)
    assert not report.reliable and "moved" in report.reason
    assert vision.crop_plan({site}) is None
    assert vision.process(shifted, 2.0).reliable  # read whole, it is found again


def test_an_arm_over_the_board_is_seen_in_the_shrunk_whole_as_in_the_frame(moved):
    """The occlusion check reads the whole picture shrunk: a hand over the board is flagged where the whole frame
    flags it, far from the sites the crops hold as well."""
    board, registry, profile, first, _, site, (renderer, after) = moved
    rng = np.random.default_rng([33, 5])
    arm = next(t.arm for t in iter(lambda: random_table(board, registry, rng, 1, True), None) if t.arm is not None)
    armed = renderer.render(Table(after.pieces, arm), random_shot("normal", rng), rng)
    crops, framed = Vision(board, registry, profile), Vision(board, registry, profile)
    crops.process(first.image)
    framed.process(first.image)
    plan = crops.crop_plan({site})
    image, cropped = compose(plan, cut(armed.image, plan))
    hidden = {
        s for r in crops.process(image, 1.0, cropped=cropped).unreliable if r.reason == "occluded" for s in r.sites
    }
    seen = {s for r in framed.process(armed.image, 1.0, {site}).unreliable if r.reason == "occluded" for s in r.sites}
    assert len(seen) >= 3 and len(hidden & seen) >= 0.9 * len(seen) and len(hidden) <= 1.2 * len(seen)
    assert hidden - plan.read  # sites the crops do not hold


def test_a_kept_frame_holds_the_last_plans_parts_alone():
    from companion.sensing.vision_crops import Composer, CropPlan

    composer = Composer()
    first = CropPlan("trajectory", frozenset(), 0, SIZE, ((0, 0, 100, 100), (500, 500, 600, 550)))
    second = CropPlan("trajectory", frozenset(), 0, SIZE, ((50, 50, 150, 150),))
    composer.compose(first, b"\x07" * first.nbytes())
    frame, cropped = composer.compose(second, b"\x09" * second.nbytes())
    assert frame[50:150, 50:150].min() == 9 and cropped.overview.shape == (360, 640)
    assert frame[:50].max() == 0 and frame[500:550, 500:600].max() == 0  # the last plan's parts wiped


@pytest.fixture(scope="module")
def coloured():
    """An ORBIT table whose nebula chips (no sticker) are found by colour, the ranges sampled as `calibrate colours`
    samples them from the first frame; then the same table with a chip moved to an empty site."""
    from dataclasses import replace

    from companion.bench.vision_crops import sampled_colours
    from companion.sim.mounted_scene import Piece

    board, registry, rng, mounting, renderer, before, shot = _scene("orbit", 6, (0.9, 0.95), 16)
    first = renderer.render(before, shot, rng)
    profile = calibrated(mounting, rng, CameraProfile)
    reader = Vision(board, registry, profile)
    reader.process(first.image)
    profile = replace(profile, colours=sampled_colours(board, registry, profile, reader, before, first.image))
    chip = next(p for p in before.pieces if p.entry.sticker is None and p.entry.colour in profile.colours)
    taken = {p.site for p in before.pieces}
    site = next(s for s in board.sites if s.id not in taken and math.dist((s.x, s.y), (chip.x, chip.y)) > 150)
    moved = Piece(chip.entry, site.x, site.y, chip.turn, 0.0, site.id)
    after = Table(tuple(moved if p is chip else p for p in before.pieces), before.arm)
    return board, registry, profile, first, renderer.render(after, shot, rng), {chip.site, site.id}


def test_where_pieces_are_found_by_colour_the_phone_sends_their_windows_parts_in_colour(coloured):
    board, registry, profile, first, second, changed = coloured
    crops, framed = Vision(board, registry, profile), Vision(board, registry, profile)
    crops.process(first.image)
    framed.process(first.image)
    plan = crops.crop_plan(changed)
    assert plan is not None and plan.colour and plan.nbytes() < SIZE[0] * SIZE[1]
    image, cropped = compose(plan, cut(second.image, plan))
    assert image.ndim == 3 and image[cropped.plan.colour[0][1], cropped.plan.colour[0][0]].tolist() == (
        second.image[plan.colour[0][1], plan.colour[0][0]].tolist()
    )
    report = crops.process(image, 1.0, cropped=cropped)
    whole = framed.process(second.image, 1.0, changed)
    assert report.reliable and {(s.piece, s.site) for s in report.sightings} == {
        (s.piece, s.site) for s in whole.sightings
    }
    found = {(s.piece, s.site) for s in report.sightings if s.sticker is None}
    assert any(site in changed and site is not None for _, site in found), found  # the chip read where it now is
    # Parts of every site in colour would cost more than the whole picture: it is asked for whole.
    assert crops.crop_plan({s.id for s in board.sites}) is None
