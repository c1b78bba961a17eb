"""Trajectory's building blocks: fuel costs, infestor paths, entry points, setup checks."""

from dataclasses import replace

import pytest

from companion.rules import Action, IllegalAction, SetupError, load
from companion.rules.trajectory.infestors import entry_point, seat_angles, step
from companion.rules.trajectory.movement import flight_cost
from companion.rules.trajectory.state import Infestor

GAME = load("trajectory")
FIXED = {"planets": {"metal": 0, "home": 0, "helium": 0, "ice": 0}}


@pytest.mark.parametrize(
    ("weight", "origin", "target", "to_planet", "from_acc", "fuel"),
    [
        (8, "o2s0", "o2s1", False, False, 1),  # along an orbit: 1, whatever the weight
        (8, "o2s0", "o3s1", False, False, 4),  # half of 8
        (7, "o2s0", "o3s1", False, False, 4),  # half of 7, rounded up
        (7, "o2s0", "o3s1", True, False, 2),  # a quarter of 7 arriving at a planet, rounded up
        (9, "o2s0", "o3s1", False, True, 3),  # a quarter leaving an accelerator
        (9, "o2s0", "o3s1", True, True, 3),  # the two quarters are not multiplied
        (1, "o3s0", "o2s0", False, False, 1),  # half of 1 rounds up to 1
        (0, "o3s0", "o2s0", False, False, 1),  # never free
    ],
)
def test_flight_costs(weight, origin, target, to_planet, from_acc, fuel):
    assert flight_cost(weight, origin, target, to_planet, from_acc).fuel == fuel


def test_default_seats_spread_from_the_south_edge():
    assert seat_angles(4, None) == (270.0, 0.0, 90.0, 180.0)
    assert seat_angles(2, (-90, 450)) == (270, 90)


@pytest.mark.parametrize(
    ("seat", "site"),
    [(270, "o4s22"), (0, "o4s30"), (90, "o4s6"), (180, "o4s14"), (73.125, "o4s6"), (28.125, "o4s6")],
)
def test_infestors_enter_nearest_the_drawing_seat(seat, site):
    # Points sit at 73.125, 163.125, 253.125 and 343.125 degrees; 28.125 is a tie between the last and the first.
    assert entry_point(seat) == site


@pytest.mark.parametrize(
    ("start", "planet", "expected"),
    [
        ("o4s6", "o2s0", "o3s3"),  # inward along the one inward path: outer 2k-1 and 2k lead to inner k
        ("o4s5", "o4s9", "o4s6"),  # on its orbit: the shorter way
        ("o4s9", "o4s5", "o4s8"),  # the other way round
        ("o1s0", "o1s2", "o1s1"),  # a tie goes counter-clockwise
        ("o2s0", "o3s14", "o3s1"),  # outwards (retargeted to home from orbit 1 is the real case): nearer path
    ],
)
def test_infestor_steps(start, planet, expected):
    assert step(Infestor("ice", "ice", start), planet) == expected


def test_setup_places_ships_at_home_full_of_fuel_and_stacks_the_deck():
    state = GAME.setup(["red", "blue", "green"], {}, 3)
    home = state.planets["home"]
    assert all(ship.site == home and ship.hold.fuel == 8 and ship.hold.cargo == 0 for ship in state.ships.values())
    assert [(p.actions, p.infestors) for p in state.deck] == [(12, 2), (12, 4), (12, 6)]
    assert GAME.ledger(state)["table"]["cards_in_deck"] == 48
    for planet, orbit in {"metal": 1, "home": 2, "helium": 3, "ice": 4}.items():
        assert state.planets[planet].startswith(f"o{orbit}s")


def test_planets_are_placed_at_random_by_the_seed():
    spots = {tuple(GAME.setup(["red"], {}, seed).planets.values()) for seed in range(30)}
    assert len(spots) > 20


@pytest.mark.parametrize(
    ("players", "options", "message"),
    [
        ([], {}, "players: Trajectory takes 1 to 6 ships, got 0"),
        (["red", "pink"], {}, "players: 'pink' is not a ship colour"),
        (["red", "red"], {}, "players: each ship colour may be used once"),
        (["red"], {"difficulty": "brutal"}, "options.difficulty: expected one of easy, normal, hard, got 'brutal'"),
        (["red"], {"seats": [1, 2]}, "options.seats: 2 seats for 1 players"),
        (["red"], {"planets": {"home": 8}}, "options.planets.home: space 8 is not on its orbit (0 to 7)"),
        (["red"], {"planets": {"pluto": 1}}, "options.planets: no planet 'pluto'"),
        (["red"], {"spinner": []}, "options.spinner: the spinner needs at least one sector"),
        (["red"], {"spinner": ["ice", "ice+gold"]}, "options.spinner[1]: 'ice+gold' is no sector"),
        (["red"], {"spinner": ["ice+ice"]}, "options.spinner[0]: 'ice+ice' is no sector"),
        (["red"], {"colour": "x"}, "options: unknown field 'colour'"),
    ],
)
def test_bad_setups_name_the_option(players, options, message):
    with pytest.raises(SetupError) as error:
        GAME.setup(players, options, 1)
    assert message in str(error.value)


def test_the_given_state_is_never_changed():
    state = GAME.setup(["red"], FIXED, 1)
    snapshot = GAME.state_to_json(state)
    after, _ = GAME.apply(state, Action.make("draw", card="action"))
    assert GAME.state_to_json(state) == snapshot
    assert after != state


def test_unknown_action_lists_the_actions():
    state = GAME.setup(["red"], FIXED, 1)
    with pytest.raises(IllegalAction, match=r"Trajectory has no action 'fly'.*move"):
        GAME.apply(state, Action.make("fly"))


def test_infestor_phase_prompt_says_what_moves():
    state = GAME.setup(["red"], FIXED, 1)
    state = replace(state, stage="infestors", turn=None, infestors=(Infestor("ice", "ice", "o4s5"),))
    phase = GAME.phase(state)
    assert phase.actor is None
    assert "Move the ice infestor from orbit 4 space 5 to orbit 4 space 4." in phase.prompt
    assert [a.type for a in GAME.legal_actions(state)] == ["move_infestors"]


def test_legal_actions_offer_every_partial_refuel_as_well_as_a_full_mat():
    """A phone builds its choices from the legal actions, so a partial refuel must be among them."""
    state = GAME.setup(["red"], FIXED, 1)
    state = GAME.apply(state, Action.make("draw", card="action"))[0]
    ship = state.ships["red"]
    state = replace(state, ships={"red": replace(ship, hold=replace(ship.hold, fuel=3))})
    refuels = {a.get("amount") for a in GAME.legal_actions(state) if a.type == "refuel"}
    assert refuels == {1, 2, 3, 4, 5}  # 5 fills the mat
    assert GAME.apply(state, Action.make("refuel", amount=2))[0].ships["red"].hold.fuel == 5
