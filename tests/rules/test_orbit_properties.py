"""Invariants of ORBIT over random games: hypothesis picks the seed, the mode and the modules."""

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.rules import load
from companion.rules.orbit.data import load_deck
from companion.rules.orbit.state import CAPACITY_MAX, ENERGY_CUBES, HAND_MAX, NEBULA_CHIPS
from companion.sim.players import playout

GAME = load("orbit")
SETTINGS = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PLAYERS = {
    "standard": ["red", "green", "blue"],
    "partnership": ["red", "green", "blue", "yellow"],
    "dual": ["red", "green"],
}

games = st.tuples(
    st.integers(0, 2**32),
    st.sampled_from(sorted(PLAYERS)),
    st.sampled_from(["front", "back"]),
    st.fixed_dictionaries({k: st.booleans() for k in ("prism", "navigation", "engine", "nebulas")}),
)


def _play(seed, mode, board, modules, limit=250):
    options = {"mode": mode, "board": board, **modules}
    state = GAME.setup(PLAYERS[mode], options, seed)
    return PLAYERS[mode], options, state, list(playout(GAME, state, seed, max_actions=limit))


def _pieces(state):
    return Counter(p.split("-")[0] for pieces in GAME.layout(state).values() for p in pieces)


@SETTINGS
@given(games)
def test_books_stay_within_the_box(game):
    _, _, _, moves = _play(*game)
    size = load_deck("").size
    for move in moves:
        state = move.state
        for person in state.people.values():
            assert 0 <= person.energy <= person.capacity <= CAPACITY_MAX
            assert 3 <= person.hand_size <= HAND_MAX and 0 <= person.hand <= person.hand_size
        assert 0 <= sum(p.energy for p in state.people.values()) <= ENERGY_CUBES
        in_play = 1 if state.turn and state.turn.card else 0
        hands = sum(p.hand for p in state.people.values())
        assert state.deck + hands + sum(state.discard.values()) + state.discard_unknown + in_play == size
        assert len(state.nebulas) <= NEBULA_CHIPS


@SETTINGS
@given(games)
def test_pieces_are_conserved_except_stations_taken_and_nebulas_placed(game):
    _, _, state, moves = _play(*game)
    for move in moves:
        before, after = _pieces(state), _pieces(move.state)
        for kind in ("planet", "ship", "prism"):
            assert before[kind] == after[kind], (move.action, kind)
        assert after["nebula"] - before["nebula"] == (move.action.type == "nebula")
        assert 0 <= before["station"] - after["station"] <= 1
        state = move.state


@SETTINGS
@given(games)
def test_json_round_trip_and_replay(game):
    players, options, state, moves = _play(*game, limit=120)
    for move in moves[::10]:
        assert GAME.state_from_json(GAME.state_to_json(move.state), GAME.material(move.state)) == move.state
    replayed, _ = GAME.replay(players, options, game[0], [m.action for m in moves])
    assert replayed == (moves[-1].state if moves else state)


@SETTINGS
@given(games)
def test_every_legal_action_is_accepted_and_markers_only_go(game):
    _, _, state, moves = _play(*game, limit=80)
    for move in moves[::8]:
        for action in GAME.legal_actions(move.state):
            GAME.apply(move.state, action)
    for move in moves:
        for colour, ship in move.state.ships.items():
            assert set(ship.markers) <= set(state.ships[colour].markers)
        state = move.state


def test_random_games_end_with_a_winner():
    for seed in (1, 2):
        state = GAME.setup(["red", "green"], {}, seed)
        for move in playout(GAME, state, seed):
            state = move.state
        assert GAME.outcome(state) is not None and GAME.outcome(state).result == "won"
