"""Periorbis's data files, setup checks, board and twin."""

import json

import pytest

from companion.boards import default_board
from companion.rules import Action, SetupError, load
from companion.rules.periorbis.datafiles import DataError, default_path
from companion.rules.periorbis.datafiles import load as load_data
from companion.sim.table_setup import grid_size

GAME = load("periorbis")


def test_default_data_matches_the_rulebook():
    facts = load_data()
    assert [a.name for a in facts.asteroids[:6]] == ["ada", "bertha", "capek", "datura", "eros", "freia"]
    assert len(facts.asteroids) == 9 and len(facts.orbit) == 12
    assert {n for n, level in facts.orbit[0].items() if level == 1} == {"ada", "bertha", "capek"}
    assert "capek" not in facts.orbit[5] and facts.short_orbit["6"] == {"capek": 2}
    assert all(set(a.slots) <= {10, 15, 20} for a in facts.asteroids)
    assert facts.ships["1-1"].price == 8 and [r.size for r in facts.ships["1-1"].rows] == [6, 4, 2]
    assert facts.ships["1-1"].rows[0].advance == 12


def _folder(tmp_path, name, change):
    data = json.loads(default_path(name).read_text())
    change(data)
    (tmp_path / name).write_text(json.dumps(data))
    return str(tmp_path)


def test_a_table_replaces_a_data_file_with_its_own(tmp_path):
    def richer(data):
        data["credits"] = 50

    folder = _folder(tmp_path, "setup.json", richer)
    state = GAME.setup(["red", "green"], {"data": folder}, 1)
    assert GAME.ledger(state)["players"]["red"]["credits"] == 50
    # The other files keep their defaults.
    assert GAME.ledger(state)["table"]["turns"] == 12


@pytest.mark.parametrize(
    ("name", "change", "message"),
    [
        ("setup.json", lambda d: d.update(credits="lots"), "setup.json: setup.credits: expected an integer"),
        ("orbit.json", lambda d: d["turns"].pop(), "orbit.json: orbit.turns: needs 12 turns, got 11"),
        ("orbit.json", lambda d: d["turns"][0].update(pluto=1), "orbit.json: orbit.turns[0]: no asteroid 'pluto'"),
        ("asteroids.json", lambda d: d["asteroids"][0].update(slots=[]), "asteroids.asteroids[0].slots: needs"),
        ("employees.json", lambda d: d["decks"][0][0].update(wage=0), "employees.decks[0][0].wage: must be at least"),
        ("employees.json", lambda d: d["decks"][0][1].update(number=1), "employees.decks[0][1].number: card 1 is used"),
        ("employees.json", lambda d: d["decks"][1][0].update(number=10**5), "employees.decks[1][0].number: must be 0"),
        ("ships.json", lambda d: d["decks"][0][0].update(minimum=40), "ships.decks[0][0].minimum: must be 1 to"),
        ("ships.json", lambda d: d["decks"][0][0].pop("price"), "ships.decks[0][0]: missing field 'price'"),
    ],
)
def test_a_bad_data_file_is_one_line_naming_the_file_and_field(tmp_path, name, change, message):
    folder = _folder(tmp_path, name, change)
    with pytest.raises(DataError) as error:
        GAME.setup(["red", "green"], {"data": folder}, 1)
    text = str(error.value)
    assert "\n" not in text and text.startswith(str(tmp_path / name)) and message in text


def test_setup_refuses_bad_players_and_options(tmp_path):
    with pytest.raises(SetupError, match="2 to 6 players"):
        GAME.setup(["red"], {}, 1)
    with pytest.raises(SetupError, match="different one-word name"):
        GAME.setup(["red", "red"], {}, 1)
    with pytest.raises(SetupError, match=r"options\.length"):
        GAME.setup(["red", "green"], {"length": "medium"}, 1)
    with pytest.raises(SetupError, match="not a folder"):
        GAME.setup(["red", "green"], {"data": str(tmp_path / "missing")}, 1)


def test_the_board_has_the_track_and_every_base_slot_and_fits_the_grid():
    board = default_board("periorbis")
    assert len(board.sites) == 12 + 9 * 6 and grid_size(len(board.sites)) == 16
    assert board.has_site("turn-12") and board.has_site("iris-6")
    assert len(board.fiducials) == 4


def test_only_carrying_an_employee_and_the_bureaucracy_are_board_moves():
    state = GAME.setup(["red", "green"], {}, 3)
    assert GAME.board_moves == {"carry", "bureaucracy"}
    before = GAME.layout(state)
    state, _ = GAME.apply(state, Action.make("end_turn"))
    state, _ = GAME.apply(state, Action.make("end_turn"))
    after = GAME.layout(GAME.apply(state, Action.make("bureaucracy"))[0])
    assert before == {"turn-1": ("turn-marker",)} and after == {"turn-2": ("turn-marker",)}


def test_there_are_enough_periorbis_scenarios():
    from pathlib import Path

    folder = Path(__file__).parents[1] / "scenarios" / "periorbis"
    assert len(list(folder.glob("*.json"))) >= 40


def test_the_last_turn_is_scored_by_a_declared_action_the_table_reaches():
    """The last bureaucracy moves no piece (the turn marker stays on the last turn), so the board cannot show it:
    it is `score`, declared on a phone (a short game played through the table ends scored:
    tests/table/test_whole_games.py)."""
    state = GAME.setup(["red", "green"], {"length": "short"}, 3)
    state = GAME.state_from_json(
        {**GAME.state_to_json(state), "turn": 6, "stage": "bureaucracy", "active": None}, GAME.material(state)
    )
    assert [a.type for a in GAME.legal_actions(state)] == ["score"] and "score" not in GAME.board_moves
    assert GAME.phase(state).step == "score"
    scored, _ = GAME.apply(state, Action.make("score"))
    assert GAME.layout(scored) == GAME.layout(state) and GAME.outcome(scored) is not None
