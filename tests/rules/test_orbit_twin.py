"""ORBIT through the twin: whole games over a simulated reed grid, from the setup to the win, no wrong move taken.

The scripted players seek the goal (companion/sim/orbit_player.py), with random picks mixed in, messy hands and
illegal moves put right; each game is played to its end and its log, resumed from SQLite, is the game that was won.
The same games are played again with the rendered camera over the table too, and its phone taps counted against the
grid's alone.
"""

import random
from dataclasses import replace

import pytest

from companion.rules import load
from companion.rules.orbit.state import ships_of, team_of
from companion.sim.game_layouts import ORBIT_MODULES
from companion.sim.orbit_player import distance_to_win
from companion.sim.players import scripted_action
from companion.sim.table_setup import make_twin
from companion.table.session import Session
from companion.table.store import Store

GAME = load("orbit")


TABLES = {
    "four-players": (4, {}, 3),
    "partnership": (4, {"mode": "partnership"}, 3),
    "dual-spaceship": (2, {"mode": "dual"}, 3),
    "back-side-every-module": (3, ORBIT_MODULES, 5),
}


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Whole games at each table, with the grid alone or the grid and the rendered camera, each played once."""
    runs = {}

    def play(table: str, camera: bool):
        if (table, camera) not in runs:
            players, options, seed = TABLES[table]
            db = tmp_path_factory.mktemp(table) / "t.db"
            twin = make_twin(
                "orbit", players, seed, "virtual", str(db), mess=0.3, illegal=0.1, options=options, camera=camera
            )
            with twin:
                stats = twin.play(2000)
            runs[table, camera] = (twin, stats, db)
        return runs[table, camera]

    return play


@pytest.mark.parametrize("table", list(TABLES))
def test_a_whole_orbit_game_plays_out_in_the_twin(played, table):
    twin, stats, db = played(table, False)
    state = twin.session.state
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.result == "won", "the game did not end within 2000 actions"
    assert stats.wrong_accepted == 0, stats.wrong
    assert stats.illegal_caught == stats.illegal_tried > 0
    assert stats.board_moves > 50 and stats.phone_inputs > 50
    team = team_of(state, outcome.winners[0])
    assert set(outcome.winners) == set(team)
    for member in team:
        for colour in ships_of(state, member):
            assert state.ships[colour].markers == ()
            assert state.planets[colour].site == state.ships[colour].site
    resumed = Session.resume(Store(db), twin.session.record.id)
    assert resumed is not None and GAME.state_to_json(resumed.state) == GAME.state_to_json(state)


@pytest.mark.parametrize("table", ["four-players", "dual-spaceship"])
def test_the_camera_settles_the_moves_the_grid_leaves_to_a_phone(played, table):
    """The same game (same seed, same moves, same messy hands) with the grid alone and with the rendered camera
    too: ships docking on planets and stacking, which the grid cannot tell apart, need no tap with the camera."""
    grid_twin, grid, _ = played(table, False)
    twin, stats, _ = played(table, True)
    assert GAME.state_to_json(twin.session.state) == GAME.state_to_json(grid_twin.session.state)
    assert stats.board_moves == grid.board_moves and twin.camera is not None
    assert twin.camera.frames >= stats.board_moves
    assert stats.wrong_accepted == 0, stats.wrong
    assert stats.illegal_caught == stats.illegal_tried
    assert grid.taps >= 0.15 * grid.board_moves  # a ship docking on a planet: its switch is already closed
    assert stats.taps <= 0.03 * stats.board_moves and stats.taps < grid.taps


def test_the_demo_twin_watches_orbit_with_the_camera_over_the_side_in_play():
    front = make_twin("orbit", 2, 1, "virtual", None, 0.0, 0.0, camera=None)
    back = make_twin("orbit", 3, 1, "virtual", None, 0.0, 0.0, camera=None, options={"board": "back"})
    assert front.camera is not None and back.camera is not None
    assert (front.camera.camera.width, front.camera.camera.height) == (1920, 1080)
    assert "Alternate Dimension" in back.camera.board.notes and "front side" in front.camera.board.notes
    assert front.camera.physical("ship-blue-red") == "ship-blue"


def test_the_goal_seeking_player_gets_nearer_to_winning():
    """Over a game, every player's distance to winning falls, and the winner's reaches 0."""
    state = GAME.setup(["red", "green"], {}, 7)
    rng = random.Random(7)
    start = {name: distance_to_win(state, name) for name in state.players}
    for _ in range(2000):
        if GAME.outcome(state) is not None:
            break
        state = GAME.apply(state, scripted_action(GAME, state, rng))[0]
    outcome = GAME.outcome(state)
    assert outcome is not None
    for name in state.players:
        left = distance_to_win(state, name)
        assert left < start[name]
        assert left == 0 or name not in outcome.winners


def test_distance_to_win_counts_markers_then_the_way_home():
    state = GAME.setup(["red", "green"], {}, 1)
    docked = distance_to_win(state, "red")
    assert 7 * 40 <= docked <= 7 * 40 + 20  # seven markers, the nearest planet a few steps away
    red = state.ships["red"]
    home = replace(state, ships={**state.ships, "red": replace(red, markers=())})
    assert distance_to_win(home, "red") == 0  # every marker gone and docked at home: the goal itself
    away = replace(home, ships={**home.ships, "red": replace(red, markers=(), site="r0s0")})
    assert distance_to_win(away, "red") > 0  # the way home counts
