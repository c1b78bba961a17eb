"""Invariants of Orbital Battle over random games: hypothesis picks the seeds."""

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import codec
from companion.rules import load
from companion.rules.orbital_battle.state import State
from companion.rules.orbital_battle.units import KINDS, TRANSPORT_CAPACITY
from companion.sim.players import playout

GAME = load("orbital_battle")
SETTINGS = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(0, 2**32)


def _play(seed, limit=600):
    state = GAME.setup(["red", "blue"], {}, seed)
    return state, list(playout(GAME, state, seed, max_actions=limit))


def _check_books(state: State):
    taken = Counter(u.site for u in state.units if not u.site.startswith("in:"))
    assert all(n == 1 for n in taken.values()), "two units share a hex"
    assert not set(taken) & set(state.planets.values()), "a ship sits on a planet"
    for player in state.players:
        assert state.points[player] >= 0
        kinds = Counter(u.kind for u in state.units if u.owner == player)
        assert all(kinds[k] <= KINDS[k].qty for k in kinds), "more counters than the box holds"
    holds = Counter(u.site for u in state.units if u.site.startswith("in:"))
    assert all(n <= TRANSPORT_CAPACITY for n in holds.values())
    uids = {u.uid for u in state.units}
    assert all(site[3:] in uids for site in holds), "cargo aboard a transport that is gone"


@SETTINGS
@given(seeds)
def test_books_stay_within_the_box_and_every_legal_action_is_accepted(seed):
    _, moves = _play(seed)
    for move in moves[::7]:
        _check_books(move.state)
        for action in list(GAME.legal_actions(move.state))[:400]:
            GAME.check(move.state, action)


@SETTINGS
@given(seeds)
def test_pieces_only_change_by_what_the_rules_allow(seed):
    state, moves = _play(seed, 300)
    before = state
    for move in moves:
        old = Counter(u.uid for u in before.units)
        new = Counter(u.uid for u in move.state.units)
        if move.action.type in (
            "fly",
            "march",
            "load",
            "unload",
            "orbit",
            "withdraw",
            "retreat",
            "done",
            "roll",
            "home",
        ):
            # Only destruction can remove units here (an orbit push with no room, a failed retreat).
            assert not (new - old)
        if move.action.type == "buy":
            assert sum((new - old).values()) == 1 and not (old - new)
        before = move.state


@SETTINGS
@given(seeds)
def test_state_round_trips_through_json_and_replays(seed):
    state, moves = _play(seed, 300)
    for move in moves[::25]:
        assert GAME.state_from_json(codec.to_json(move.state)) == move.state
    replayed, _ = GAME.replay(["red", "blue"], {}, seed, [m.action for m in moves])
    assert replayed == (moves[-1].state if moves else state)


def test_random_games_end_with_a_winner():
    ended = 0
    for seed in (1, 2, 3):
        state = GAME.setup(["red", "blue"], {}, seed)
        for move in playout(GAME, state, seed):
            state = move.state
        ended += GAME.outcome(state) is not None
    assert ended == 3


def test_the_board_after_each_legal_action_is_the_layout_of_the_state_it_leads_to():
    # board_after works the board out from the sites an action touches, without ending idle phases: whatever
    # the action (a unit bought, a transport loaded or unloaded onto a planet it conquers, a ship shoved by an
    # orbit), it must be the layout of the state apply gives. A game whose random play makes every kind of move.
    _, moves = _play(5, 1300)
    kinds = Counter()
    for index, move in enumerate(moves):
        actions = list(GAME.legal_actions(move.state))
        if index % 25 and not any(a.type in ("load", "unload", "withdraw", "retreat") for a in actions):
            continue
        before = GAME.layout(move.state)
        for action in actions[::7]:
            after, _ = GAME.board_after(move.state, action, before)
            assert after == GAME.layout(GAME.apply(move.state, action)[0]), action
            kinds[action.type] += 1
    assert all(kinds[k] for k in ("orbit", "buy", "fly", "march", "load", "unload", "done")), kinds
