"""Every action of every game is read through its declared argument schema (engine.Game.actions).

Hypothesis fuzzes the actions' JSON forms, as a phone or a scenario file would send them, from positions reached by
random play: a float, a numeric string, a negative or huge number, null, a list or an object in place of an
argument, an argument left out, an unknown one added. Each is either refused with one line (an ActionError, which
the web answers with a 400, naming the argument) or accepted as a value the log and the snapshots load again.
"""

import importlib
import json
import random
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.codec import Maybe
from companion.rules import IllegalAction, load, names
from companion.rules.engine import ActionError
from companion.sim.players import scripted_action

PLAYERS = {
    "trajectory": ["red", "blue"],
    "orbit": ["red", "green", "blue"],
    "dakalio": ["red", "blue"],
    "orbital_battle": ["red", "blue"],
    "periorbis": ["orange", "green", "blue"],
}
# Actions of random play to reach the fuzzed positions (ORBIT's legal actions are the slowest to list).
DEPTH = {"orbit": 40}
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

BAD_VALUES = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.just(6.0),
    st.integers(max_value=-1),
    st.integers(min_value=10**6, max_value=10**60),
    st.sampled_from(["1", "", "x" * 200, None, True, [], [1], {}, {"a": 1}]),
    st.text(max_size=8),
)


@cache
def positions(name: str) -> list[tuple[object, list]]:
    """(state, its legal actions) at several points of one random game."""
    game = load(name)
    state = game.setup(PLAYERS[name], {}, 5)
    rng = random.Random(5)
    found = []
    for step in range(DEPTH.get(name, 150)):
        if game.outcome(state) is not None:
            break
        if step % 10 == 0:
            found.append((state, list(game.legal_actions(state))))
        state, _ = game.apply(state, scripted_action(game, state, rng))
    return found


def _round_trips(game, state, action) -> None:
    """An accepted action and the state it leads to load again from their stored JSON."""
    new, _ = game.apply(state, action)
    assert game.decode_action(json.loads(json.dumps(action.to_json()))) == action
    assert game.state_from_json(json.loads(json.dumps(game.state_to_json(new))), game.material(new)) == new


def _refused_or_sound(game, state, data: dict) -> str | None:
    """None when accepted (and sound), else the one-line refusal."""
    try:
        action = game.decode_action(data)
        game.check(state, action)
    except ActionError as error:
        assert "\n" not in error.reason and error.reason
        return error.reason
    except IllegalAction as error:
        assert "\n" not in error.reason and error.reason
        return error.reason
    _round_trips(game, state, action)
    return None


@pytest.mark.parametrize("name", names())
def test_every_action_type_has_a_schema(name):
    module = importlib.import_module(f"companion.rules.{name}.game")
    assert set(load(name).actions) == set(module.HANDLERS)


@pytest.mark.parametrize("name", names())
def test_every_legal_action_reads_back_through_its_schema(name):
    """What the engines offer (and the referee books) is exactly what the schema reads: nothing is refused that the
    phones are offered, and actions need no second check after decoding."""
    game = load(name)
    for _, legal in positions(name):
        for action in legal:
            assert game.decode_action(json.loads(json.dumps(action.to_json()))) == action


@pytest.mark.parametrize("name", names())
@SETTINGS
@given(data=st.data())
def test_fuzzed_arguments_are_refused_in_one_line_or_stored_soundly(name, data):
    game = load(name)
    state, legal = data.draw(st.sampled_from(positions(name)))
    action = data.draw(st.sampled_from(legal))
    form = action.to_json()
    fields = game.actions[action.type]
    how = data.draw(st.sampled_from(["replace", "drop", "add"]))
    if how == "add" or not fields:
        key = data.draw(st.text(min_size=1, max_size=10).filter(lambda k: k not in fields and k != "type"))
        form[key] = data.draw(BAD_VALUES)
        reason = _refused_or_sound(game, state, form)
        assert reason is not None
        assert repr(key)[:20] in reason or key[:20] in reason
        return
    key = data.draw(st.sampled_from(sorted(fields)))
    if how == "drop":
        form.pop(key, None)
        reason = _refused_or_sound(game, state, form)
        if not isinstance(fields[key], Maybe):
            assert reason is not None and key in reason
        return
    form[key] = data.draw(BAD_VALUES)
    _refused_or_sound(game, state, form)


@pytest.mark.parametrize("name", names())
def test_numbers_are_whole_and_bounded_where_the_codec_reads_them(name):
    """Every argument that takes a whole number refuses 6.0, "6", -1 and 10**30 at decode, naming it."""
    game = load(name)
    seen = 0
    for _, legal in positions(name):
        for action in legal:
            for key, value in action.args:
                if not isinstance(value, int) or isinstance(value, bool):
                    continue
                seen += 1
                for bad in (float(value), str(value), -1, 10**30):
                    with pytest.raises(ActionError, match=key):
                        game.decode_action({**action.to_json(), key: bad})
    if name == "periorbis":
        assert seen  # employees, slots and counts are all numbers there


def test_the_develop_slot_that_once_broke_a_saved_game():
    game = load("periorbis")
    with pytest.raises(ActionError, match=r"develop.slot: expected an integer, got 6.0"):
        game.decode_action({"type": "develop", "employee": 1, "slot": 6.0})
    with pytest.raises(ActionError, match=r"unknown argument 'colour'"):
        game.decode_action({"type": "research", "employee": 1, "colour": "x" * 10**6})
    with pytest.raises(ActionError, match=r"missing 'employee'"):
        game.decode_action({"type": "research"})
    with pytest.raises(ActionError, match=r"Periorbis has no action 'xxxxxxxxxx.*\.\.\.' \(actions: hire, pass"):
        game.decode_action({"type": "x" * 10**6})
