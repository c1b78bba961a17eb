import pytest

from companion.codec import CodecError
from companion.rules import Action, Event, load, names


def test_action_json_round_trip_and_hashing():
    action = Action.make("transfer", **{"from": "red", "to": "ring", "fuel": 2})
    assert action.to_json() == {"type": "transfer", "from": "red", "to": "ring", "fuel": 2}
    again = Action.from_json(action.to_json())
    assert again == action and hash(again) == hash(action)
    assert action["fuel"] == 2 and action.get("metal") is None


def test_actions_with_lists_stay_hashable():
    action = Action.from_json({"type": "x", "path": ["a", "b"], "spec": {"k": 1}})
    assert {action: 1}[action] == 1
    assert action.to_json()["path"] == ["a", "b"]


def test_action_without_type_is_a_clear_error():
    with pytest.raises(CodecError, match="missing its 'type'"):
        Action.from_json({"to": "o1s1"})


def test_event_json_round_trip():
    event = Event("moved", "Red flies.", {"ship": "red"})
    assert Event.from_json(event.to_json()) == event


def test_registry_knows_trajectory_and_names_the_known_games_on_a_typo():
    assert "trajectory" in names()
    assert load("trajectory").name == "trajectory"
    with pytest.raises(KeyError, match=r"known: .*trajectory"):
        load("trajectroy")
