"""Every scenario file passes; malformed files are one clear line; the runner reports failures where they happen."""

import json
import re
from pathlib import Path

import pytest

from companion.scenarios import ScenarioError, find_files, load_scenario, parse_scenario, run_scenario

ROOT = Path(__file__).parent
FILES = find_files([ROOT / "scenarios"])


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT / "scenarios")) for p in FILES])
def test_scenario_passes(path):
    result = run_scenario(load_scenario(path))
    assert result.passed, result.failure


def test_there_are_enough_trajectory_scenarios():
    assert len([p for p in FILES if p.parent.name == "trajectory"]) >= 30


def test_the_example_in_the_docs_runs():
    text = (ROOT.parent / "docs" / "scenarios.md").read_text()
    example = json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))
    result = run_scenario(parse_scenario(example, Path("docs/scenarios.md")))
    assert result.passed, result.failure


BASE = {
    "game": "trajectory",
    "players": ["red"],
    "options": {"planets": {"metal": 0, "home": 0, "helium": 0, "ice": 0}},
    "steps": [{"action": {"type": "draw", "card": "action"}}],
}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"game": "chess"}, "game: unknown game 'chess'"),
        ({"steps": []}, "steps: expected a non-empty list"),
        ({"players": "red"}, "players: expected a list of player names"),
        ({"options": {"difficulty": "hardest"}}, "options.difficulty: expected one of easy, normal, hard"),
        ({"given": {"ships": {"red": {"hold": {"fuel": "full"}}}}}, "given: state.ships.red.hold.fuel: expected an"),
        ({"steps": [{"action": {"to": "o1s1"}}]}, "steps[0].action: missing its 'type'"),
        ({"steps": [{"action": {"type": "draw"}, "expext": {}}]}, "steps[0].expext: unknown key"),
        ({"steps": [{"action": {"type": "draw"}, "expect": {"ledgr": {}}}]}, "steps[0].expect.ledgr: unknown key"),
        ({"steps": [{"illegal": "x"}]}, "steps[0].illegal: expected a reason substring, on a step with an action"),
        ({"seeds": 3}, "seeds: unknown key"),
    ],
)
def test_malformed_scenarios_name_the_place(change, message):
    with pytest.raises(ScenarioError) as error:
        parse_scenario({**BASE, **change}, Path("mine.json"))
    assert str(error.value).startswith("mine.json: ")
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("steps", "failure"),
    [
        ([{"action": {"type": "move", "to": "o2s1"}}], "steps[0]: move to=o2s1 was refused: Red must draw a card"),
        ([{"action": {"type": "draw"}, "illegal": "x"}], "steps[0]: draw was accepted, expected it refused ('x')"),
        (
            [{"action": {"type": "end_turn"}, "illegal": "game is over"}],
            "steps[0]: refused for 'Red must draw a card before ending the turn', expected a reason saying",
        ),
        ([{"expect": {"ledger": {"players": {"red": {"fuel": 7}}}}}], "ledger.players.red.fuel: expected 7, got 8"),
        (
            [{"expect": {"layout": {"o2s0": ["ship-red"]}}}],
            "layout.o2s0: expected ['ship-red'], got ['planet-home', 'ship-red']",
        ),
        ([{"expect": {"outcome": {"result": "won"}}}], "outcome: expected {'result': 'won'}, got None"),
        ([{"expect": {"phase": {"actor": "blue"}}}], "phase.actor: expected 'blue', got 'red'"),
        (
            [{"action": {"type": "draw", "card": "action"}, "expect": {"events": ["infestor"]}}],
            "events: none says 'infestor'",
        ),
    ],
)
def test_failures_say_where(steps, failure):
    result = run_scenario(parse_scenario({**BASE, "steps": steps}, Path("mine.json")))
    assert not result.passed
    assert failure in result.failure
