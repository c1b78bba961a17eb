"""Orbital Battle's pieces one at a time: the maps, the terrain files, setup checks and the referee's needs."""

import json

import pytest

from companion.boards import default_board, load_board
from companion.boards.files import BoardFileError, save_board
from companion.boards.orbital_battle import planet_distance, planet_neighbours, sites_in
from companion.boards.orbital_battle_maps import load_map, parse_map
from companion.rules import Action, IllegalAction, SetupError, load
from companion.rules.orbital_battle.units import KINDS

GAME = load("orbital_battle")


def test_the_default_solar_system_fits_the_reed_grid_with_seven_orbits():
    board = default_board("orbital_battle")
    assert len(board.sites) == sites_in(8) == 217 <= 256
    assert sorted(board.orbits) == ["1", "2", "3", "4", "5", "6", "7"]
    assert len(board.orbits["7"]) == 48 and len(board.fiducials) == 4


def test_planets_start_on_their_corners():
    state = GAME.setup(["red", "blue"], {}, 1)
    # 1-6 on the corners clockwise from the top; 7 at the top and 8 at the bottom of the shared outer orbit.
    assert state.planets == {
        "1": "r2s0",
        "2": "r3s3",
        "3": "r4s8",
        "4": "r5s15",
        "5": "r6s24",
        "6": "r7s35",
        "7": "r8s0",
        "8": "r8s24",
    }


def test_planet_maps_are_m8_tiles_with_the_rulebook_features():
    pmap = load_map("1")
    assert pmap.starports == ("0401", "0204", "0604") and pmap.armory == "0403"
    assert "0800" not in pmap.hexes and "0106" not in pmap.hexes and "0003" in pmap.hexes
    assert set(planet_neighbours("0403")) == {"0402", "0502", "0503", "0404", "0303", "0302"}
    assert planet_distance("0000", "0403") == 5
    assert len(load_map("8").craters) == 7 and len(set(load_map("8").craters.values())) == 1


def test_every_map_draws_loads_and_round_trips(tmp_path):
    for spec in ["orbital_battle", *[f"orbital_battle:planet{n}" for n in range(1, 9)]]:
        board = default_board(spec)
        save_board(board, tmp_path / "b.json")
        assert load_board(tmp_path / "b.json") == board


def test_a_terrain_file_of_the_tables_own_replaces_the_default(tmp_path):
    from importlib import resources

    data = json.loads(resources.files("companion.boards.orbital_battle_data").joinpath("planet1.json").read_text())
    data["rows"][0] = "WWWWWWWW#"
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data))
    state = GAME.setup(["red", "blue"], {"planet_files": {"1": str(path)}}, 1)
    from companion.rules.orbital_battle.geo import planet_map

    assert planet_map(state, "1").terrain["0000"] == "water"
    data["starports"] = ["0000", "0204", "0604"]
    path.write_text(json.dumps(data))
    with pytest.raises(SetupError, match="a feature cannot stand on water"):
        GAME.setup(["red", "blue"], {"planet_files": {"1": str(path)}}, 1)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"radius": 9}, r"options.radius: expected a whole number from 1 to 8, got 9"),
        ({"rings": [1, 2, 3]}, "seven ring numbers"),
        ({"rings": [2, 3, 4, 5, 6, 7, 9]}, r"options.rings\[6\]: expected a whole number from 1 to 8, got 9"),
        ({"radius": 6, "rings": [1, 2, 3, 4, 5, 6, 7]}, "ring 7 lies outside a map of radius 6"),
        ({"planet_files": {"9": "x.json"}}, "no planet '9'"),
    ],
)
def test_bad_options_are_setup_errors(options, message):
    with pytest.raises(SetupError, match=message):
        GAME.setup(["red", "blue"], options, 1)


def test_parse_map_names_the_bad_place():
    with pytest.raises(BoardFileError, match=r"mine.json: rows\[0\]\[0\]: 'x'"):
        parse_map({"rows": ["x" * 9] * 7, "starports": [], "resources": [], "armory": "0403"}, "1", "mine.json")


def test_the_unit_table():
    assert (KINDS["battleship"].cost, KINDS["battleship"].attack, KINDS["battleship"].defense) == (12, 6, 6)
    assert KINDS["factory"].qty == 16 and KINDS["militia"].cost == 1


def test_owned_pieces_carry_the_owner_suffix_and_the_buyer_builds_only_round_its_home():
    state = GAME.setup(["red", "blue"], {}, 1)
    for action in [
        Action.make("roll", dice=(5, 2)),
        Action.make("home", planet="1"),
        Action.make("home", planet="5"),
        Action.make("buy", kind="army", at="p5:0003"),
    ]:
        state, _ = GAME.apply(state, action)
    layout = GAME.layout(state)
    assert layout["r6s24"] == ("planet-5",)
    assert layout["p5:0003"] == ("army-blue",)
    with pytest.raises(IllegalAction, match="next to a planet you control"):
        GAME.check(state, Action.make("buy", kind="transport", at="r3s0"))
