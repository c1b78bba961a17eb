"""The scripted hands: footprints from two layouts, the frames of a move in a person's order, and what counts as
advice to undo a move in progress."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from companion.sim.hand_play import undoes
from companion.sim.hand_time import Geometry, People, boards, timeline
from companion.sim.hands import ORDERS, Frame, Habits, footprint, plan

TIDY = Habits(slide=0.0, lift=0.0, knock=0.0)
SITES = [f"s{i}" for i in range(9)]
# A capture: Red's ship flies from s1 to s2, where Blue's ship stood; Blue's ship is taken off.
BEFORE = {"s1": ("ship-red",), "s2": ("ship-blue",), "s5": ("planet",)}
AFTER = {"s2": ("ship-red",), "s5": ("planet",)}


def test_a_footprint_is_what_moves_what_is_taken_off_and_what_is_set_down():
    foot = footprint(BEFORE, AFTER)
    assert foot.moved == (("ship-red", "s1", "s2"),)
    assert foot.removed == (("ship-blue", "s2"),)
    assert foot.added == ()
    assert foot.sites == {"s1", "s2"}
    built = footprint(AFTER, {**AFTER, "s7": ("station",)})
    assert built.added == (("station", "s7"),) and not built.moved and not built.removed
    assert not footprint(BEFORE, BEFORE)


def test_move_then_remove_puts_the_capturing_ship_down_first():
    frames = plan(BEFORE, AFTER, "move then remove", random.Random(1), TIDY, SITES)
    assert [f.layout for f in frames] == [{"s2": ("ship-blue", "ship-red"), "s5": ("planet",)}, AFTER]
    assert all(f.settles for f in frames)


def test_remove_then_place_takes_the_captured_ship_off_first():
    frames = plan(BEFORE, AFTER, "remove then place", random.Random(1), TIDY, SITES)
    assert [f.layout for f in frames] == [{"s1": ("ship-red",), "s5": ("planet",)}, AFTER]


def test_a_stack_travels_together_and_a_lift_holds_it_in_the_air():
    before = {"s1": ("ship-red", "cargo-red")}
    after = {"s3": ("ship-red", "cargo-red")}
    frames = plan(before, after, "move then remove", random.Random(1), Habits(slide=0.0, lift=1.0, knock=0.0), SITES)
    assert [f.layout for f in frames] == [{}, after]
    assert frames[0].settles and "in the air" in frames[0].note


def test_a_slide_passes_over_an_empty_site_too_briefly_to_settle():
    frames = plan(BEFORE, AFTER, "move then remove", random.Random(3), Habits(slide=1.0, lift=0.0, knock=0.0), SITES)
    passing = [f for f in frames if not f.settles]
    assert len(passing) == 1
    (extra,) = set(passing[0].layout) - set(BEFORE)
    assert extra not in ("s1", "s2") and frames[-1].layout == AFTER


def test_a_knock_takes_a_bystander_off_and_puts_it_back():
    frames = plan(BEFORE, AFTER, "move then remove", random.Random(2), Habits(slide=0.0, lift=0.0, knock=1.0), SITES)
    knocked = [f for f in frames if f.knocked]
    assert knocked and knocked[0].knocked == {"s5"} and "s5" not in knocked[0].layout
    assert frames[-1].layout == AFTER


def test_advice_to_put_back_what_the_move_has_done_is_advice_to_undo():
    foot = footprint(BEFORE, AFTER)
    half = Frame({"s2": ("ship-blue", "ship-red"), "s5": ("planet",)})
    # "Put ship-red back on s1" while the hand is capturing: undo advice.
    assert undoes("s1", ("ship-red",), half, BEFORE, foot)
    # "Take ship-blue off s2" is what is still to do: not undo advice.
    assert not undoes("s2", ("ship-red",), half, BEFORE, foot)
    # A knocked bystander put back is right advice, and so is a site the hand has not touched yet.
    knocked = Frame({"s2": ("ship-blue", "ship-red")}, knocked=frozenset({"s5"}))
    assert not undoes("s5", ("planet",), knocked, BEFORE, foot)
    assert not undoes("s2", ("ship-blue",), Frame(dict(BEFORE)), BEFORE, foot)


def test_a_planet_carried_and_turned_is_one_piece_moved_by_the_hand():
    # ORBIT names a planet with the way its arrow points: advancing it moves the piece and points it anew, a hand
    # carries it (never sets a second red planet down), and reversing it lifts it and sets it down turned.
    before = {"r1s0": ("planet-red>r1s1",), "r2s0": ("planet-blue>r2s3",)}
    after = {"r1s1": ("planet-red>r1s2",), "r2s0": ("planet-blue>r2s3",)}
    assert footprint(before, after).moved == (("planet-red>r1s1", "r1s0", "r1s1"),)
    for order in ORDERS:
        frames = plan(before, after, order, random.Random(3), Habits(0, 0, 0), ["r1s0", "r1s1", "r2s0"])
        assert frames[-1].layout == after
        assert all(sum(p.startswith("planet-red") for s in f.layout.values() for p in s) <= 1 for f in frames)
    turned = {"r1s0": ("planet-red>r1s3",), "r2s0": ("planet-blue>r2s3",)}
    assert footprint(before, turned).moved == (("planet-red>r1s1", "r1s0", "r1s0"),)
    assert plan(before, turned, ORDERS[0], random.Random(3), Habits(0, 0, 0), ["r1s0"])[-1].layout == turned


# Hands in time (hand_time.py): the ranges of shared/WORLD.md, nothing of the table's.
LINE = Geometry({site: (0, 40.0 * i, 0.0) for i, site in enumerate(SITES)})
STILL = People(slide=0.0, nudge=0.0, drop=0.0, knock=0.0, two_hands=0.0, any_order=0.0, by_piece=0.0)


def test_the_first_carry_is_held_for_the_hold_time_and_the_last_board_is_the_action_done():
    for hold in (0.1, 3.0, 10.0):
        line = timeline(BEFORE, AFTER, random.Random(4), STILL, hold, LINE)
        lifted = next(t.at for t in line.touches if t.take and t.piece == "ship-red")
        landed = next(t.at for t in line.touches if not t.take and t.piece == "ship-red")
        assert landed - lifted == pytest.approx(hold)
        assert boards(BEFORE, AFTER, line)[-1][1] == AFTER


def test_every_touch_of_the_action_is_made_by_an_arm_over_the_board_unless_it_thinks_drawn_back():
    for seed in range(20):
        line = timeline(BEFORE, AFTER, random.Random(seed), People(knock=0.0), 5.0, LINE)
        for touch in line.touches:
            assert line.arm_at(touch.at) is not None, (seed, touch)
        drawn_back = any("drawn back" in note for note in line.notes)
        lifted, landed = line.touches[0].at, max(t.at for t in line.touches if t.piece == "ship-red")
        assert drawn_back == (line.arm_at((lifted + landed) / 2) is None), seed


def test_a_slide_closes_each_site_it_passes_for_50_to_300_ms():
    line = timeline(
        {"s0": ("ship-red",)},
        {"s4": ("ship-red",)},
        random.Random(1),
        People(slide=1.0, nudge=0.0, drop=0.0, knock=0.0),
        2.0,
        LINE,
    )
    passed = [t for t in line.touches if t.site in ("s1", "s2", "s3")]
    assert [t.site for t in passed] == ["s1", "s1", "s2", "s2", "s3", "s3"]
    for down, up in zip(passed[::2], passed[1::2], strict=True):
        assert not down.take and up.take and 0.05 <= up.at - down.at <= 0.3


def test_a_nudge_lifts_the_piece_within_half_a_second_and_may_first_set_it_beside_its_site():
    for beside, first in ((0.0, "s4"), (1.0, "s3")):  # (s3 and s5 lie as near: the first free one)
        people = People(slide=0.0, nudge=1.0, beside_first=beside, drop=0.0, knock=0.0)
        line = timeline({"s0": ("ship-red",)}, {"s4": ("ship-red",)}, random.Random(2), people, 1.0, LINE)
        downs = [t for t in line.touches if not t.take]
        assert downs[0].site == first and downs[-1].site == "s4"
        assert downs[-1].at - downs[0].at <= 0.5 + 0.15


def test_a_victim_is_taken_off_before_during_or_up_to_5_s_after_the_capturing_move():
    when = set()
    for seed in range(60):
        line = timeline(BEFORE, AFTER, random.Random(seed), People(knock=0.0), 1.0, LINE)
        landed = max(t.at for t in line.touches if not t.take and t.piece == "ship-red")
        lifted = min(t.at for t in line.touches if t.take and t.piece == "ship-red")
        off = next(t.at for t in line.touches if t.take and t.piece == "ship-blue")
        assert off - landed <= 5.0 + 0.5
        when.add("before" if off < lifted else "during" if off < landed else "after")
    assert when == {"before", "during", "after"}


def test_the_hands_in_time_share_nothing_with_the_table():
    import ast

    import companion.sim.hand_time as model

    tree = ast.parse(Path(model.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not {name for name in imported if name.startswith(("companion.table", "companion.web"))}, imported
