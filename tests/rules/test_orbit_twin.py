"""ORBIT through the twin: whole games over a simulated reed grid, from the setup to the win, no wrong move taken.

The scripted players seek the goal (companion/sim/orbit_player.py), with random picks mixed in, messy hands and
illegal moves put right; each game is played to its end and its log, resumed from SQLite, is the game that was won.
"""

import random
from dataclasses import replace

import pytest

from companion.rules import load
from companion.rules.orbit.state import ships_of, team_of
from companion.sim.orbit_player import distance_to_win
from companion.sim.players import scripted_action
from companion.sim.table_setup import make_twin
from companion.table.session import Session
from companion.table.store import Store

GAME = load("orbit")
ALL_MODULES = {"board": "back", "prism": True, "navigation": True, "engine": True, "nebulas": True}


@pytest.mark.parametrize(
    ("players", "options", "seed"),
    [(4, {}, 3), (4, {"mode": "partnership"}, 3), (2, {"mode": "dual"}, 3), (3, ALL_MODULES, 5)],
    ids=["four-players", "partnership", "dual-spaceship", "back-side-every-module"],
)
def test_a_whole_orbit_game_plays_out_in_the_twin(tmp_path, players, options, seed):
    db = tmp_path / "t.db"
    twin = make_twin("orbit", players, seed, "virtual", str(db), mess=0.3, illegal=0.1, options=options)
    with twin:
        stats = twin.play(2000)
    state = twin.session.state
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.result == "won", "the game did not end within 2000 actions"
    assert stats.wrong_accepted == 0 and stats.illegal_caught == stats.illegal_tried > 0
    assert stats.board_moves > 50 and stats.phone_inputs > 50
    team = team_of(state, outcome.winners[0])
    assert set(outcome.winners) == set(team)
    for member in team:
        for colour in ships_of(state, member):
            assert state.ships[colour].markers == ()
            assert state.planets[colour].site == state.ships[colour].site
    resumed = Session.resume(Store(db), twin.session.record.id)
    assert resumed is not None and GAME.state_to_json(resumed.state) == GAME.state_to_json(state)


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
