"""Invariants of Dakalio over random games: hypothesis picks the seeds, the mode and whether portals are used."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.rules import Action, load
from companion.rules.dakalio.mat import mat
from companion.rules.dakalio.slide import obstacles
from companion.rules.dakalio.state import ASTEROIDS_EACH, SHIPS_EACH
from companion.sim.players import playout

GAME = load("dakalio")
PLAYERS = ["red", "green"]
SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])

games = st.tuples(st.integers(0, 2**32), st.sampled_from(["simple", "supremacy"]), st.booleans())


def _play(seed, mode, portals, limit=150):
    """A random game that never resigns (resigning would end most games before the slides get interesting)."""
    rng = random.Random(seed)
    state = GAME.setup(PLAYERS, {"mode": mode}, seed)
    states, actions = [state], []
    for _ in range(limit):
        if GAME.outcome(state) is not None:
            break
        choices = [a for a in GAME.legal_actions(state) if a.type != "resign"]
        if state.stage == "portals":
            choices = [Action.make("portals", use=portals)]
        if not choices:
            choices = [Action.make("resign")]
        by_type = {}
        for action in choices:
            by_type.setdefault(action.type, []).append(action)
        action = rng.choice(by_type[rng.choice(sorted(by_type))])
        state, _ = GAME.apply(state, action)
        states.append(state)
        actions.append(action)
    return states, actions


@SETTINGS
@given(games)
def test_a_move_always_ends_next_to_an_obstacle_never_in_the_load_zone(game):
    board = mat()
    states, _ = _play(*game)
    for state in states:
        for action in GAME.legal_actions(state):
            if action.type not in ("move", "enter"):
                continue
            to = action["to"]
            assert to in board.spots and to not in board.load_zone, action
            blocked = obstacles(state, action.get("from"))
            assert to not in blocked, action
            # Whatever the route (wrap-around or portal), the ship stopped because the next spot was taken.
            assert any(n in blocked for n in board.neighbours(to)), action


@SETTINGS
@given(games)
def test_pieces_are_conserved_and_the_books_stay_in_the_box(game):
    states, _ = _play(*game)
    for state in states:
        ledger = GAME.ledger(state)
        pieces = [p for stack in GAME.layout(state).values() for p in stack]
        for player, books in ledger["players"].items():
            ships = books["reserve"] + books["inside"] + books["delivered"] + books["captured"]
            assert ships == SHIPS_EACH
            assert pieces.count(f"ship-{player}") == books["inside"] + books["delivered"]
            assert 0 <= books["asteroids_left"] <= ASTEROIDS_EACH
            assert books["dakalio_taken"] <= 2 and books["delivered"] <= 2
        assert pieces.count("asteroid") + sum(b["asteroids_left"] for b in ledger["players"].values()) == 6
        assert pieces.count("red-dakalio") == 3 and pieces.count("blue-dakalio") == 1
        assert pieces.count("portal") == len(state.portals) <= 2
        # Blue is taken last.
        if ledger["table"]["blue_dakalio_on_bases"] == 0:
            assert ledger["table"]["red_dakalio_on_bases"] == 0
        # No two pieces that block share a spot; nothing stands in the Load Zone but Dakalio on its base.
        for site, stack in GAME.layout(state).items():
            assert sum(p.startswith("ship-") or p == "asteroid" for p in stack) <= 1
            if site in mat().load_zone:
                assert stack in (("red-dakalio",), ("blue-dakalio",))


@SETTINGS
@given(games)
def test_every_legal_action_is_accepted_and_the_game_replays(game):
    seed, mode, portals = game
    states, actions = _play(seed, mode, portals, limit=60)
    for state in states[::7]:
        for action in GAME.legal_actions(state):
            GAME.apply(state, action)
    replayed, _ = GAME.replay(PLAYERS, {"mode": mode}, seed, actions)
    assert replayed == states[-1]
    data = GAME.state_to_json(states[-1])
    assert GAME.state_from_json(data, GAME.material(states[-1])) == states[-1]


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(["simple", "supremacy"]))
def test_random_playouts_end(seed, mode):
    state = GAME.setup(PLAYERS, {"mode": mode}, seed)
    moves = list(playout(GAME, state, seed, max_actions=5000))
    assert GAME.outcome(moves[-1].state) is not None
