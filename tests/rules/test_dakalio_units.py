"""Dakalio's mat and engine in small pieces: the default mat, user mats, exact legal actions, the twin."""

import json
import re

import pytest

from companion.boards import dakalio as mat_file
from companion.boards import default_board, load_board
from companion.boards.files import save_board
from companion.printables.overlay import board_drawing
from companion.rules import Action, IllegalAction, SetupError, load
from companion.rules.dakalio.mat import mat
from companion.rules.dakalio.slide import slide

GAME = load("dakalio")
PLAYERS = ["red", "green"]


def test_the_default_mat_has_every_part_the_rulebook_names():
    board = mat()
    assert len(board.spots) == 54 and len(board.load_zone) == 7
    assert len(board.red_bases) == 3 and board.blue_base == "e5"
    assert len(board.control) == 24 and len(board.stations) == 6 and len(board.ports) == 3
    assert all(board.served_by[s] in board.red_bases for s in board.stations)
    assert all(board.served_by[p] == board.blue_base for p in board.ports)
    # Entry lines: three, two or none for every Control Zone spot; none at all on a signal.
    counts = {spot: len(board.entries.get(spot, ())) for spot in board.control}
    assert set(counts.values()) == {0, 2, 3}
    assert all(counts[s] == 0 for s in board.control & board.signals)
    # Entry lines lead inside, never along the Control Zone (they may cross a signal spot, as ships inside may).
    assert all(t not in board.control and t in board.spots for ts in board.entries.values() for t in ts)


def test_opposite_sides_are_adjacent():
    board = mat()
    assert "i4" in board.neighbours("a6")  # row 6 leaves at a6 and comes back at the far end of row 4
    assert "e1" in board.neighbours("e9")
    for spot in board.control:
        assert all(spot in board.neighbours(n) for n in board.neighbours(spot))


def test_a_slide_with_nothing_on_its_loop_goes_round_for_ever():
    board = mat()
    way = next(w for w in board.ways["c4"] if board.next_spot(w) == "c5")
    result = slide(board, {}, way)
    assert result.loops and result.stop is None and len(result.path) == len(board.loops[way.loop])


def test_the_mat_file_round_trips_and_replaces_the_default(tmp_path):
    path = tmp_path / "mat.json"
    assert mat_file.main([str(path)]) == 0
    assert load_board(path) == default_board("dakalio")
    # A table whose mat differs edits the file: here the row 5 Port c5 becomes an ordinary spot.
    data = json.loads(path.read_text())
    for site in data["sites"]:
        if site["id"] == "c5":
            site["tags"] = []
    data["links"] = [link for link in data["links"] if link["b"] != "c5"]
    path.write_text(json.dumps(data))
    state = GAME.setup(PLAYERS, {"first": "red", "mat": str(path)}, 0)
    assert "c5" not in mat(str(path)).ports
    state, _ = GAME.apply(state, Action.make("portals", use=False))
    state, _ = GAME.apply(state, Action.make("asteroid", at="c5"))  # no longer a Port
    assert GAME.layout(state)["c5"] == ("asteroid",)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.__setitem__("sites", [s for s in d["sites"] if s["id"] != "f5"]), "no site 'f5'"),
        (lambda d: [s.update(tags=[]) for s in d["sites"] if s["id"] == "e5"], "3 red bases and 1 blue base"),
        (lambda d: [s.update(kind="spot", tags=[]) for s in d["sites"] if s["id"] == "f5"], "3 red bases"),
        (lambda d: d["links"].append({"a": "e1", "b": "e2", "kind": "entry", "directed": True}), "entry line e1->e2"),
        (lambda d: d.__setitem__("links", [k for k in d["links"] if k["b"] != "f6"]), "f6 needs a 'serves' link"),
    ],
)
def test_a_bad_mat_file_is_a_setup_error(tmp_path, change, message):
    path = tmp_path / "mat.json"
    save_board(mat_file.build(), path)
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    with pytest.raises(SetupError, match=re.escape(message)):
        GAME.setup(PLAYERS, {"mat": str(path)}, 0)


def test_setup_refuses_bad_players_and_options():
    with pytest.raises(SetupError, match="two players"):
        GAME.setup(["red"], {}, 0)
    with pytest.raises(SetupError, match="two players"):
        GAME.setup(["red", "red"], {}, 0)
    with pytest.raises(SetupError, match=r"options\.first"):
        GAME.setup(PLAYERS, {"first": "blue"}, 0)
    with pytest.raises(SetupError, match=r"options\.mode"):
        GAME.setup(PLAYERS, {"mode": "tournament"}, 0)
    with pytest.raises(SetupError, match=r"options\.mat"):
        GAME.setup(PLAYERS, {"mat": "/nonexistent/mat.json"}, 0)


def test_players_are_named_by_setup():
    state = GAME.setup(["Ana", "Bo"], {"first": "Bo"}, 0)
    assert GAME.phase(state).prompt.startswith("Bo plays first")


def test_the_mat_draws_as_a_printable_overlay():
    drawing = board_drawing(default_board("dakalio"))
    assert drawing.width == drawing.height == 600


def _played(seed: int, actions: int) -> object:
    """A position some way into a game without portals... and one with them, for the exactness test."""
    import random

    rng = random.Random(seed)
    state = GAME.setup(PLAYERS, {"first": "red"}, seed)
    for _ in range(actions):
        choices = [a for a in GAME.legal_actions(state) if a.type != "resign"]
        if GAME.outcome(state) is not None or not choices:
            break
        state, _ = GAME.apply(state, rng.choice(choices))
    return state


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_legal_actions_are_exactly_the_moves_check_accepts(seed):
    state = _played(seed, 30)
    if GAME.outcome(state) is not None or state.stage != "play":
        pytest.skip("the game ended early")
    board = mat()
    legal = set(GAME.legal_actions(state))
    for spot in sorted(state.ships):
        for to in sorted(board.spots | board.load_zone):
            action = Action.make("move", **{"from": spot, "to": to})
            assert GAME.is_legal(state, action) == (action in legal), action
    for to in sorted(board.spots):
        action = Action.make("enter", to=to)
        assert GAME.is_legal(state, action) == (action in legal), action
    for spot in sorted(board.spots):
        for kind in ("dakalio", "asteroid"):
            action = Action.make(kind, at=spot)
            assert GAME.is_legal(state, action) == (action in legal), action


def test_illegal_actions_leave_the_state_unchanged():
    state = _played(4, 12)
    before = GAME.state_to_json(state)
    with pytest.raises(IllegalAction):
        GAME.apply(state, Action.make("move", **{"from": "e5", "to": "e6"}))
    assert GAME.state_to_json(state) == before


def test_a_supremacy_match_plays_out_in_the_twin(tmp_path):
    from companion.sim.table_setup import make_twin

    with make_twin("dakalio", 2, 2, "virtual", str(tmp_path / "t.db"), mess=0.2, illegal=0.05,
                   options={"mode": "supremacy"}) as twin:  # fmt: skip
        stats = twin.play(400)
        session = twin.session
    outcome = GAME.outcome(session.state)
    assert outcome is not None and stats.wrong_accepted == 0
    assert len(session.state.winners) >= 2 and session.state.winners[-1] == session.state.winners[-2]


def test_no_entry_on_the_default_mat_crosses_or_stops_on_a_signal():
    """However the mat is filled, an entering ship's whole path keeps off the anti-gravity signals."""
    import random
    from dataclasses import replace

    from companion.rules.dakalio.play import entries
    from companion.rules.dakalio.state import Ship

    board = mat()
    rng = random.Random(7)
    spots = sorted(board.spots)
    base = GAME.setup(["red", "green"], {"first": "red"}, 0)
    seen = 0
    for _ in range(200):
        taken = rng.sample(spots, 8)
        state = replace(
            base,
            stage="play",
            actor="red",
            use_portals=True,
            portals=tuple(taken[:2]),
            ships={s: Ship("green") for s in taken[2:5]},
            asteroids=tuple(taken[5:]),
        )
        for found in entries(state).values():
            for route in found.values():
                assert not set(route.spots) & board.signals
                seen += 1
    assert seen > 1000
