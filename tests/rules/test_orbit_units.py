"""ORBIT's setup checks, its boards as data, its deck file and the referee's view of it."""

import json

import pytest

from companion.boards import default_board, load_board
from companion.boards.files import save_board
from companion.boards.orbit import COLOURS, build
from companion.printables.overlay import board_drawing
from companion.printables.shapes import to_svg
from companion.rules import Action, SetupError, load
from companion.rules.orbit.data import DEFAULT_DECK, load_deck
from companion.rules.orbit.space import space, straight_lines
from companion.rules.orbit.state import material

GAME = load("orbit")


@pytest.mark.parametrize("side", ["front", "back"])
def test_both_sides_fit_the_reed_grid_and_have_eight_orbits(side):
    board = build(side)
    assert len(board.sites) <= 256
    sp = space(material(side, ""))
    assert sorted(sp.positions) == sorted(COLOURS)
    assert len(sp.portals) >= 4 and len(sp.station_sites) == 14
    assert len(board.fiducials) >= 4  # any three of them give the camera the board's pose
    # Planet symbols, portals and station sites never share an intersection.
    for site in board.sites:
        roles = [t for t in site.tags if t.startswith("planet-") or t in ("portal", "station")]
        assert len(roles) <= 1, site


def test_the_back_has_forks_and_an_open_gray_orbit():
    sp = space(material("back", ""))
    forks = [s for s, near in sp.orbit.items() if len(near) > 2]
    assert {sp.colour_of[s] for s in forks} == {"yellow", "blue", "purple"}
    assert any(link.kind == "orbit-outside" for link in sp.board.links)


def test_straight_lines_run_to_the_edge():
    line = straight_lines(material("front", ""), "r0s0", frozenset())
    assert len(line) == 6 * 8 and "r8s0" in line and "r8s24" in line


def test_default_board_prints_and_round_trips_as_a_file(tmp_path):
    board = default_board("orbit")
    assert "<svg" in to_svg(board_drawing(board))
    path = tmp_path / "mine.json"
    save_board(build("back"), path)
    assert load_board(path) == build("back")
    state = GAME.setup(["red", "green"], {"board": str(path)}, 1)
    assert GAME.ledger(state)["table"]["stations_on_board"] == 14


def test_a_board_file_with_a_shared_symbol_is_refused(tmp_path):
    data = json.loads(json.dumps(__import__("companion.codec", fromlist=["to_json"]).to_json(build("front"))))
    site = next(s for s in data["sites"] if "planet-red" in s["tags"])
    site["tags"].append("planet-gray")
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SetupError, match="is a planet symbol of red and gray"):
        GAME.setup(["red", "green"], {"board": str(path)}, 1)


@pytest.mark.parametrize(
    ("players", "options", "message"),
    [
        (["red"], {}, "the standard game takes 2 to 4 players"),
        (["red", "pink"], {}, "'pink' is not a planet colour"),
        (["red", "red"], {}, "each colour may be chosen once"),
        (["red", "green", "blue"], {"mode": "partnership"}, "the partnership game takes 4 to 4 players"),
        (["red", "green", "blue"], {"mode": "dual"}, "the dual game takes 2 to 2 players"),
        (["red", "green"], {"mode": "dual", "second_colours": ["green", "blue"]}, "none chosen twice"),
        (["red", "green"], {"second_colours": ["blue", "gray"]}, "only the dual spaceship game"),
        (["red", "green"], {"planets": {"red": "r2s1"}}, "is not a planet symbol of the red orbit"),
        (["red", "green"], {"planets": {"red": "r1s0"}, "headings": {"red": "r1s3"}}, "is not next to"),
        (["red", "green"], {"stations": {"r1s0": "hand"}}, "is not a space station site"),
        (["red", "green"], {"stations": {"r2s4": "bar"}}, "is not a station"),
        (["red", "green"], {"mode": "solo"}, "options.mode"),
        (["red", "green"], {"board": "/nowhere.json"}, "cannot read it"),
        (["red", "green"], {"deck": "/nowhere.json"}, "cannot read it"),
    ],
)
def test_setup_errors_name_the_problem(players, options, message):
    with pytest.raises(SetupError, match=message):
        GAME.setup(players, options, 0)


def test_deck_file_default_composition_and_a_bad_file(tmp_path):
    deck = load_deck("")
    assert deck.size == 56 and sum(deck.stations.values()) == 30
    assert deck.markers["purple"] == "hand" and deck.markers["orange"] == "energy" and deck.markers["brown"] == "cannon"
    data = json.loads(DEFAULT_DECK.read_text())
    data["markers"]["red"] = "teleport"
    path = tmp_path / "deck.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SetupError, match=r"deck\.markers\.red"):
        load_deck(str(path))


def test_layout_names_owned_pieces_by_their_owner_and_ledger_is_json():
    state = GAME.setup(["red", "green"], {"mode": "dual"}, 4)
    pieces = [p for stack in GAME.layout(state).values() for p in stack]
    ships = {p for p in pieces if p.startswith("ship")}
    assert ships == {"ship-red", "ship-green", "ship-blue-red", "ship-yellow-green"}
    assert json.loads(json.dumps(GAME.ledger(state)))["players"]["red"]["markers_left"] == 14


def test_planet_advances_are_board_moves_and_cards_are_declared():
    state = GAME.setup(["red", "green"], {}, 2)
    assert {a.type for a in GAME.legal_actions(state)} == {"play"}
    state, _ = GAME.apply(state, Action.make("play", card="c03"))
    kinds = {a.type for a in GAME.legal_actions(state)}
    assert kinds == {"advance", "fly"}  # energy-free card, advances mandatory: no end_turn yet
    assert {"advance", "fly"} <= GAME.board_moves and "play" not in GAME.board_moves


@pytest.mark.parametrize("side", ["front", "back"])
def test_a_planet_never_turns_back_round_its_orbit(side):
    """From every position, arriving from either neighbour, the ways onward keep the planet going round the centre
    the way it came; only the Alternate Dimension's branch starts offer two (a fork), and never the way it came."""
    from companion.rules.orbit.space import _turning, next_choices

    sp = space(material(side, ""))
    forks = set()
    for site, near in sp.orbit.items():
        for came in near:
            onward = next_choices(material(side, ""), came, site)
            assert came not in onward
            going = _turning(sp, came, site)
            assert all(_turning(sp, site, s) in (going, 0) for s in onward) or not going
            if len(onward) == 2:
                forks.add((came, site))
    # Each of the three forking orbits forks once going each way round: at the branch's start, never where it joins.
    assert len(forks) == (6 if side == "back" else 0)
