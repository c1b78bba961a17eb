"""Scenarios: a game played step by step from a JSON file, with what must hold after each step.

The format is a public interface, documented in docs/scenarios.md. A malformed file raises ScenarioError naming
the file and the place; a scenario that runs but does not hold gives a failed ScenarioResult saying where.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion import codec
from companion.errors import UserError
from companion.jsonfile import read_json
from companion.rules import Action, Game, IllegalAction, SetupError, load

TOP_KEYS = {"name", "description", "game", "players", "options", "seed", "given", "steps"}
STEP_KEYS = {"action", "illegal", "expect", "note"}
EXPECT_KEYS = {"phase", "ledger", "layout", "outcome", "events", "state"}


class ScenarioError(UserError):
    """A scenario file that cannot be run as written."""


@dataclass(frozen=True)
class Step:
    action: Action | None
    illegal: str | None
    expect: dict[str, Any]


@dataclass(frozen=True)
class Scenario:
    path: Path
    name: str
    game: Game
    players: tuple[str, ...]
    options: dict[str, Any]
    seed: int
    given: dict[str, Any]
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class ScenarioResult:
    scenario: Scenario
    failure: str | None = None
    steps_run: int = 0
    events: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.failure is None


def find_files(paths: Iterable[str | Path]) -> list[Path]:
    """The scenario files named, with directories searched recursively for *.json, in a stable order."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(path.rglob("*.json")))
        elif path.is_file():
            found.append(path)
        else:
            raise ScenarioError(f"{path}: no such file or directory")
    return found


def load_scenario(path: str | Path) -> Scenario:
    path = Path(path)
    data = read_json(path, ScenarioError)
    return parse_scenario(data, path)


def parse_scenario(data: Any, path: Path) -> Scenario:
    def bad(where: str, what: str) -> ScenarioError:
        return ScenarioError(f"{path}: {where}: {what}")

    if not isinstance(data, dict):
        raise bad("top level", "expected an object")
    for key in sorted(set(data) - TOP_KEYS):
        raise bad(key, f"unknown key (known: {', '.join(sorted(TOP_KEYS))})")
    for key in ("game", "players", "steps"):
        if key not in data:
            raise bad(key, "missing")
    try:
        game = load(data["game"]) if isinstance(data["game"], str) else None
    except KeyError as error:
        raise bad("game", str(error.args[0])) from None
    if game is None:
        raise bad("game", "expected a game name")
    players = data["players"]
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise bad("players", "expected a list of player names")
    options, seed, given = data.get("options", {}), data.get("seed", 0), data.get("given", {})
    if not isinstance(options, dict):
        raise bad("options", "expected an object")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise bad("seed", "expected an integer")
    if not isinstance(given, dict):
        raise bad("given", "expected an object (a partial state, merged into the state after setup)")
    if not isinstance(data["steps"], list) or not data["steps"]:
        raise bad("steps", "expected a non-empty list")
    steps = tuple(_parse_step(step, f"steps[{i}]", bad) for i, step in enumerate(data["steps"]))
    scenario = Scenario(path, str(data.get("name", path.stem)), game, tuple(players), options, seed, given, steps)
    _initial_state(scenario)  # a bad setup or a bad "given" is a malformed file, found before anything runs
    return scenario


def _parse_step(step: Any, where: str, bad: Any) -> Step:
    if not isinstance(step, dict):
        raise bad(where, "expected an object")
    for key in sorted(set(step) - STEP_KEYS):
        raise bad(f"{where}.{key}", f"unknown key (known: {', '.join(sorted(STEP_KEYS))})")
    action = None
    if "action" in step:
        try:
            action = Action.from_json(step["action"])
        except codec.CodecError as error:
            raise bad(f"{where}.action", str(error).removeprefix("action: ")) from None
    illegal = step.get("illegal")
    if illegal is not None and (not isinstance(illegal, str) or action is None):
        raise bad(f"{where}.illegal", "expected a reason substring, on a step with an action")
    expect = step.get("expect", {})
    if not isinstance(expect, dict):
        raise bad(f"{where}.expect", "expected an object")
    for key in sorted(set(expect) - EXPECT_KEYS):
        raise bad(f"{where}.expect.{key}", f"unknown key (known: {', '.join(sorted(EXPECT_KEYS))})")
    if "events" in expect and not (
        isinstance(expect["events"], list) and all(isinstance(e, str) for e in expect["events"])
    ):
        raise bad(f"{where}.expect.events", "expected a list of text substrings")
    if action is None and not expect:
        raise bad(where, "a step needs an action, an expectation, or both")
    return Step(action, illegal, expect)


def _merge(base: Any, patch: Any) -> Any:
    if isinstance(base, dict) and isinstance(patch, dict):
        return {**base, **{k: _merge(base.get(k), v) for k, v in patch.items()}}
    return patch


def _initial_state(scenario: Scenario) -> Any:
    game = scenario.game
    try:
        state = game.setup(scenario.players, scenario.options, scenario.seed)
    except SetupError as error:
        raise ScenarioError(f"{scenario.path}: {error}") from None
    if not scenario.given:
        return state
    try:
        return game.state_from_json(_merge(game.state_to_json(state), scenario.given), game.material(state))
    except codec.CodecError as error:
        raise ScenarioError(f"{scenario.path}: given: {error}") from None


def mismatch(expected: Any, actual: Any, path: str) -> str | None:
    """Where `actual` fails to contain `expected` (objects: the keys given; lists and values: exactly)."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{path}: expected an object, got {actual!r}"
        for key, value in expected.items():
            if key not in actual:
                return f"{path}.{key}: missing (have {', '.join(map(str, actual)) or 'nothing'})"
            found = mismatch(value, actual[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list | tuple) or len(actual) != len(expected):
            return f"{path}: expected {expected!r}, got {actual!r}"
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            found = mismatch(e, a, f"{path}[{i}]")
            if found:
                return found
        return None
    if expected != actual or isinstance(expected, bool) != isinstance(actual, bool):
        return f"{path}: expected {expected!r}, got {actual!r}"
    return None


def _check_expectations(game: Game, state: Any, expect: dict[str, Any], texts: list[str]) -> str | None:
    checks: list[tuple[str, Any]] = []
    if "phase" in expect:
        checks.append(("phase", game.phase(state).to_json()))
    if "ledger" in expect:
        checks.append(("ledger", game.ledger(state)))
    if "state" in expect:
        checks.append(("state", game.state_to_json(state)))
    for key, actual in checks:
        found = mismatch(expect[key], codec.to_json(actual), key)
        if found:
            return found
    if "layout" in expect:
        layout = game.layout(state)
        for site, pieces in expect["layout"].items():
            found = mismatch(pieces, list(layout.get(site, ())), f"layout.{site}")
            if found:
                return found
    if "outcome" in expect:
        outcome = game.outcome(state)
        actual = outcome.to_json() if outcome else None
        if expect["outcome"] is None or actual is None:
            if expect["outcome"] != actual:
                return f"outcome: expected {expect['outcome']!r}, got {actual!r}"
        else:
            found = mismatch(expect["outcome"], actual, "outcome")
            if found:
                return found
    for wanted in expect.get("events", []):
        if not any(wanted in text for text in texts):
            return f"events: none says {wanted!r} (got: {' | '.join(texts) or 'no events'})"
    return None


def run_scenario(scenario: Scenario) -> ScenarioResult:
    game = scenario.game
    state = _initial_state(scenario)
    announced: list[str] = []
    for index, step in enumerate(scenario.steps):
        where = f"steps[{index}]"
        texts: list[str] = []
        if step.action is not None:
            try:
                state, events = game.apply(state, game.decode_action(step.action.to_json()))
            except IllegalAction as error:
                if step.illegal is None:
                    return ScenarioResult(
                        scenario, f"{where}: {step.action} was refused: {error.reason}", index, announced
                    )
                if step.illegal not in error.reason:
                    return ScenarioResult(
                        scenario,
                        f"{where}: refused for {error.reason!r}, expected a reason saying {step.illegal!r}",
                        index,
                        announced,
                    )
            else:
                if step.illegal is not None:
                    return ScenarioResult(
                        scenario,
                        f"{where}: {step.action} was accepted, expected it refused ({step.illegal!r})",
                        index,
                        announced,
                    )
                texts = [event.text for event in events]
                announced.extend(texts)
        failure = _check_expectations(game, state, step.expect, texts)
        if failure:
            return ScenarioResult(scenario, f"{where}: {failure}", index, announced)
    return ScenarioResult(scenario, None, len(scenario.steps), announced)


def run_files(paths: Iterable[str | Path]) -> Iterator[ScenarioResult]:
    """Load every scenario first (a malformed one stops everything), then run each."""
    scenarios = [load_scenario(path) for path in find_files(paths)]
    for scenario in scenarios:
        yield run_scenario(scenario)
