"""A phone's parts over a table of several boards (TableVision): one plan over the boards whose sites changed, each
board read from its own parts as the whole frame read in crops reads it, the others keeping their last reading."""

from __future__ import annotations

import pytest

from companion.boards import default_board
from companion.sensing.pieces import default_registry
from companion.sensing.vision_crops import CropPlan, TablePlan, compose
from companion.sim.phone_crops import cut
from companion.sim.twin_spread import SpreadCamera, boards_in_view, spread_size

GAME = "orbital_battle"
LAYOUT = {
    "r5s14": ("transport-green",),
    "p4:0206": ("army-green",),
    "p4:0201": ("marines-green",),
    "p6:0303": ("militia-red",),
}


@pytest.fixture(scope="module")
def spread():
    board, beside, registry = default_board(GAME), boards_in_view(GAME), default_registry(GAME)
    size = spread_size(board, beside, 2, registry.sticker_sizes()[0])
    return SpreadCamera(board, beside, registry, ["red", "green"], seed=5, size=size)


def test_a_tables_plan_names_the_changed_boards_parts_alone_and_reads_as_the_whole_frame(spread):
    from companion.sensing.vision_table import TableVision

    first, _ = spread.render(LAYOUT)
    after = {**LAYOUT, "p4:0406": ("armor-green",)}
    second, _ = spread.render(after)
    crops = TableVision(spread.vision.boards, spread.registry, spread.vision.visions[0].profile)
    framed = TableVision(spread.vision.boards, spread.registry, spread.vision.visions[0].profile)
    assert crops.crop_plan({"p4:0406"}) is None  # nothing read yet: the whole picture first
    before = crops.process(first, 0.0)
    framed.process(first, 0.0)
    plan = crops.crop_plan({"p4:0406"})
    assert isinstance(plan, TablePlan) and plan.boards == (f"{GAME}:planet4",) and "p4:0406" in plan.read
    width, height = plan.size
    assert plan.nbytes() == plan.overview[0] * plan.overview[1] + sum(
        (x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in plan.boxes
    )
    assert plan.nbytes() < width * height / 4
    image, cropped = compose(plan, cut(second, plan))
    report = crops.process(image, 1.0, cropped=cropped)
    whole = framed.process(second, 1.0, {"p4:0406"})
    assert report.stacks() == whole.stacks() and report.stacks()["p4:0406"] == ("armor-blue",)
    # The solar map and planet 6's map, not in the plan, keep their last reading.
    for name in (GAME, f"{GAME}:planet6"):
        kept = report.report(name)
        assert kept.sightings == before.report(name).sightings and kept.time == 1.0
    # A change on two boards is one plan over both, each board's parts its own.
    both = crops.crop_plan({"p6:0303", "r5s14"})
    assert both is not None and set(both.boards) == {GAME, f"{GAME}:planet6"}
    assert all(isinstance(part, CropPlan) for _, part in both.plans)
    assert both.boxes == tuple(box for _, part in both.plans for box in part.boxes)


def test_a_board_with_no_reading_has_the_whole_picture_asked_for(spread):
    from companion.sensing.vision_table import TableVision

    vision = TableVision(spread.vision.boards, spread.registry, spread.vision.visions[0].profile)
    vision.process(spread.render(LAYOUT)[0], 0.0)
    p3 = next(f"p3:{s.id}" for s in default_board(f"{GAME}:planet3").sites)  # planet 3's map is in the box
    assert vision.crop_plan({p3}) is None and vision.crop_plan({p3, "p4:0206"}) is None
    assert vision.crop_plan({"p4:0206"}) is not None
