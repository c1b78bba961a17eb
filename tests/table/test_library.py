"""The table's library: data sets checked by their game, shared as one file, added from one whole or not at all."""

import json

import pytest

from companion.boards import orbit
from companion.boards.files import board_to_json
from companion.rules import SetupError
from companion.rules.orbit.data import DEFAULT_DECK
from companion.table import library
from companion.table.datasets import DataSets


def _board(**changes):
    data = board_to_json(orbit.build("back"))
    data.update(changes)
    return data


def test_a_library_file_carries_a_board_and_a_deck_to_another_table(tmp_path):
    here, there = DataSets(tmp_path / "here"), DataSets(tmp_path / "there")
    library.save(here, "orbit", "board", "my-copy", _board())
    deck = json.loads(DEFAULT_DECK.read_text())
    library.save(here, "orbit", "deck", "club", deck)
    bundle = json.loads(json.dumps(library.export(here)))
    assert [(s["game"], s["option"], s["name"]) for s in bundle["sets"]] == [
        ("orbit", "board", "my-copy"),
        ("orbit", "deck", "club"),
    ]
    assert library.import_library(there, bundle, "shared.json") == [
        ("orbit", "board", "my-copy"),
        ("orbit", "deck", "club"),
    ]
    assert there.names("orbit", "board") == ["my-copy"] and there.names("orbit", "deck") == ["club"]
    assert json.loads((tmp_path / "there/orbit/board/my-copy").read_text()) == _board()


def test_a_set_of_the_same_name_is_replaced_only_when_asked_and_a_file_of_one_comes_under_any_name(tmp_path):
    sets = DataSets(tmp_path / "sets")
    library.save(sets, "orbit", "board", "mine", _board())
    bundle = library.export(sets)
    bundle["sets"][0]["data"]["name"] = "a friend's"
    with pytest.raises(library.SetExists, match=r"^shared\.json: ORBIT's board “mine” is already on this table"):
        library.import_library(sets, bundle, "shared.json")
    assert json.loads((tmp_path / "sets/orbit/board/mine").read_text()) == _board()
    assert library.import_library(sets, bundle, "shared.json", name="theirs") == [("orbit", "board", "theirs")]
    assert library.import_library(sets, bundle, "shared.json", replace=True) == [("orbit", "board", "mine")]
    assert json.loads((tmp_path / "sets/orbit/board/mine").read_text())["name"] == "a friend's"


def test_one_wrong_set_adds_none_and_the_error_names_the_file_the_set_and_the_field(tmp_path):
    sets = DataSets(tmp_path / "sets")
    broken = _board()
    broken["links"][3]["b"] = "nowhere"
    bundle = {
        "format": "orrery-library",
        "sets": [
            {"game": "orbit", "option": "board", "name": "fine", "data": _board()},
            {"game": "orbit", "option": "board", "name": "broken", "data": broken},
        ],
    }
    with pytest.raises(SetupError) as error:
        library.import_library(sets, bundle, "friend.json")
    assert "friend.json: orbit board “broken”" in str(error.value) and "board.links[3]" in str(error.value)
    assert "\n" not in str(error.value)
    assert sets.names("orbit", "board") == []


@pytest.mark.parametrize(
    ("bundle", "words"),
    [
        ({"format": "something"}, "not a library file"),
        ({"format": "orrery-library", "sets": []}, "sets: expected a list"),
        (
            {"format": "orrery-library", "sets": [{"game": "chess", "option": "board", "name": "x", "data": {}}]},
            "sets[0]: chess board: not an option",
        ),
        (
            {"format": "orrery-library", "sets": [{"game": "orbit", "option": "board", "name": "../x", "data": {}}]},
            "a data set's name",
        ),
        (
            {
                "format": "orrery-library",
                "sets": [{"game": "orbit", "option": "deck", "name": "d", "data": {"cards": 3}}],
            },
            "orbit deck “d”",
        ),
    ],
)
def test_a_bad_library_file_is_one_line_naming_what_is_wrong(tmp_path, bundle, words):
    with pytest.raises(SetupError, match=words.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        library.import_library(DataSets(tmp_path / "sets"), bundle, "lib.json")
    assert not (tmp_path / "sets" / "orbit").exists() or not any((tmp_path / "sets" / "orbit").rglob("*[!.]*"))


def test_an_orbit_that_does_not_close_is_refused_by_the_game(tmp_path):
    board = _board()
    kept = [link for link in _board()["links"] if link["kind"] == "orbit" and link["a"] == "r1s1"]
    board["links"] = [link for link in _board()["links"] if link not in kept[:1]]
    with pytest.raises(SetupError, match="does not close"):
        library.save(DataSets(tmp_path / "sets"), "orbit", "board", "open", board)


def test_a_replaced_board_is_what_the_next_game_is_set_up_on_and_a_game_begun_keeps_its_own(tmp_path):
    from companion.rules import load
    from companion.rules.orbit.space import space

    game = load("orbit")
    sets = DataSets(tmp_path / "sets")
    path = str(library.save(sets, "orbit", "board", "mine", _board()))
    begun = game.setup(["red", "blue"], {"board": path}, 1)
    assert "r3s9" in space(game.material(begun)).portals
    changed = _board()
    for site in changed["sites"]:
        if site["id"] == "r3s9":
            site["tags"] = [t for t in site["tags"] if t != "portal"]
    library.save(sets, "orbit", "board", "mine", changed)
    after = game.setup(["red", "blue"], {"board": path}, 1)
    assert "r3s9" not in space(game.material(after)).portals
    assert "r3s9" in space(game.material(begun)).portals and game.material(after) != game.material(begun)


def test_a_replaced_dakalio_mat_is_read_again_by_the_rules(tmp_path):
    from companion.boards import dakalio
    from companion.rules.dakalio.mat import mat

    sets = DataSets(tmp_path / "sets")
    first = board_to_json(dakalio.build())
    path = str(library.save(sets, "dakalio", "mat", "ours", first))
    assert len(mat(path).entries["a5"]) == 3
    changed = board_to_json(dakalio.build())
    changed["links"] = [link for link in changed["links"]
                        if (link["kind"], link["a"], link["b"]) != ("entry", "a5", "b6")]  # fmt: skip
    library.save(sets, "dakalio", "mat", "ours", changed)
    assert len(mat(path).entries["a5"]) == 2
    with pytest.raises(SetupError, match="dakalio mat “wrong”"):
        library.save(sets, "dakalio", "mat", "wrong", {**first, "sites": first["sites"][1:]})
