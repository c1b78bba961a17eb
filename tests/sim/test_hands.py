"""The scripted hands: footprints from two layouts, the frames of a move in a person's order, and what counts as
advice to undo a move in progress."""

from __future__ import annotations

import random

from companion.sim.hand_play import undoes
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
