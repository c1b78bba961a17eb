"""The referee against synthetic observations: reed-only, camera-only, partial views and wrong boards."""

import pytest

from companion.boards import default_board
from companion.rules import Action, load
from companion.table.observation import Observation, SiteReading
from companion.table.referee import judge

GAME = load("trajectory")
SITES = [s.id for s in default_board("trajectory").sites]
FIXED = {"planets": {"metal": 0, "home": 0, "helium": 0, "ice": 0}}


@pytest.fixture
def state():
    state = GAME.setup(["red", "blue"], FIXED, 1)
    return GAME.apply(state, Action.make("draw", card="action"))[0]


def reed(layout):
    return Observation({site: SiteReading(occupied=bool(layout.get(site))) for site in SITES})


def camera(layout, sites=SITES):
    return Observation({site: SiteReading(pieces=tuple(layout.get(site, ()))) for site in sites})


def after(state, **action):
    return GAME.layout(GAME.apply(state, Action.make(**action))[0])


def test_an_untouched_board_is_unchanged(state):
    assert judge(GAME, state, reed(GAME.layout(state))).verdict == "unchanged"
    assert judge(GAME, state, camera(GAME.layout(state))).verdict == "unchanged"


def test_a_move_seen_by_the_reed_grid_alone_is_explained(state):
    ruling = judge(GAME, state, reed(after(state, type="move", to="o3s1")))
    assert ruling.verdict == "explained"
    assert ruling.actions == (Action.make("move", to="o3s1"),)


def test_a_ship_leaving_a_shared_space_is_explained_by_the_camera(state):
    # Red and blue end up sharing o2s2; the camera tells which of them left it.
    moved = GAME.apply(state, Action.make("move", to="o2s1"))[0]
    blue_waits = GAME.apply(GAME.apply(moved, Action.make("end_turn"))[0], Action.make("draw", card="action"))[0]
    blue_waits = GAME.apply(blue_waits, Action.make("move", to="o2s1"))[0]
    blue_waits = GAME.apply(blue_waits, Action.make("end_turn"))[0]
    blue_waits = GAME.apply(blue_waits, Action.make("orbit"))[0]
    red_turn = GAME.apply(blue_waits, Action.make("draw", card="action"))[0]
    target = "o2s3"
    # Both ships stand on o2s2 now; red flies to o2s3, blue stays.
    assert GAME.layout(red_turn)["o2s2"] == ("ship-red", "ship-blue")
    seen = after(red_turn, type="move", to=target)
    assert judge(GAME, red_turn, camera(seen)).actions == (Action.make("move", to=target),)


def test_a_partial_view_with_several_explanations_is_ambiguous(state):
    # The camera sees red has left home but is blind everywhere else: every move red could make fits.
    seen = after(state, type="move", to="o3s1")
    ruling = judge(GAME, state, camera(seen, sites=["o2s0"]))
    assert ruling.verdict == "ambiguous"
    assert Action.make("move", to="o3s1") in ruling.actions and len(ruling.actions) > 1


def test_an_illegal_move_is_a_mismatch_with_advice(state):
    layout = dict(GAME.layout(state))
    layout["o2s0"] = ("planet-home", "ship-blue")
    layout["o3s5"] = ("ship-red",)  # two orbits away: not one move
    ruling = judge(GAME, state, camera(layout), name=lambda s: default_board("trajectory").site(s).name)
    assert ruling.verdict == "mismatch"
    advice = {fix.site: fix.advice for fix in ruling.fixes}
    assert advice == {
        "o2s0": "Put ship-red on orbit 2 space 0.",
        "o3s5": "Take ship-red off orbit 3 space 5.",
    }


def test_a_knocked_piece_seen_by_the_reed_grid_is_a_mismatch(state):
    layout = dict(GAME.layout(state))
    layout["o4s20"] = ("ship-red",)  # a piece knocked onto an empty space, nothing left home (planet remains)
    ruling = judge(GAME, state, reed(layout))
    assert ruling.verdict == "mismatch"
    assert [fix.site for fix in ruling.fixes] == ["o4s20"]
    assert ruling.fixes[0].advice == "Take the piece off o4s20: nothing should stand there."


def test_advice_when_the_grid_and_the_camera_disagree_or_a_piece_is_doubled():
    from companion.table.observation import Observation, SiteReading
    from companion.table.referee import _fixes

    layout = {"a": ("infestor-ice",), "b": ("planet-home",)}
    seen = Observation(
        {"a": SiteReading(True, ("infestor-ice", "infestor-ice")), "b": SiteReading(False, ("planet-home",))}
    )
    fixes = {fix.site: fix.advice for fix in _fixes(layout, seen, ["a", "b"], lambda site: f"site {site}")}
    assert fixes["a"] == "Take infestor-ice off site a."
    assert fixes["b"] == "Check site b: the grid and the camera disagree there."
