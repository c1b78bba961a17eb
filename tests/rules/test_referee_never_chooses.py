"""Never a silent choice: over random legal states of all five games, whenever two legal actions leave the same
board but different books, the referee asks the phones about that board instead of booking either.

States are reached by random legal play, from a setup (seeds, player counts, options) or from the given state of
one of the game's scenario files (combat, building and the other corners random play seldom reaches), and every
state of the last stretch of the walk is checked."""

import json
import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.boards import default_board
from companion.rules import SetupError, load
from companion.scenarios import _initial_state, load_scenario
from companion.table.observation import Observation, SiteReading
from companion.table.referee import Referee

COLOURS = ("red", "green", "blue", "yellow", "orange", "purple")
# Per game: the options tables play with, each with the player counts it allows.
TABLES = {
    "trajectory": [({"difficulty": "easy"}, (2, 3, 4)), ({}, (2, 5))],
    "orbit": [({}, (2, 3, 4)), ({"mode": "partnership"}, (4,)), ({"mode": "dual"}, (2, 3))],
    "dakalio": [({}, (2,)), ({"mode": "supremacy"}, (2,))],
    "orbital_battle": [({}, (2,))],
    "periorbis": [({}, (2, 3, 4)), ({"length": "short", "cards": "table"}, (2, 3))],
}


SCENARIOS = Path(__file__).parent.parent / "scenarios"
CHECKED = 8  # the states at the end of each walk that are checked


def random_walk(name: str, start: int, table: int, players: int, seed: int, steps: int):
    """The game, and the states of a random legal walk from a setup or from a scenario's given state."""
    game = load(name)
    files = sorted((SCENARIOS / name).glob("*.json"))
    if start % 3 and files:
        state = _initial_state(load_scenario(files[start % len(files)]))
    else:
        options, counts = TABLES[name][table % len(TABLES[name])]
        try:
            state = game.setup(list(COLOURS[: counts[players % len(counts)]]), options, seed)
        except SetupError:
            return game, []
    rng = random.Random(seed)
    walk = [state]
    for _ in range(steps):
        actions = list(game.legal_actions(state)) if game.outcome(state) is None else []
        if not actions:
            break
        state = game.apply(state, rng.choice(actions))[0]
        walk.append(state)
    return game, walk[-CHECKED:]


def readings(game, layout, sites, camera: bool) -> Observation:
    def seen(site):
        return tuple(game.physical_piece(p) for p in layout.get(site, ())) if camera else None

    return Observation({s: SiteReading(bool(layout.get(s)), seen(s)) for s in sites})


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(sorted(TABLES)),
    start=st.integers(0, 1000),
    table=st.integers(0, 2),
    players=st.integers(0, 3),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 120),
)
def test_boards_that_two_legal_actions_book_differently_are_never_booked(name, start, table, players, seed, steps):
    game, walk = random_walk(name, start, table, players, seed, steps)
    for state in walk:
        _never_chooses(game, state)


TRIES = 60  # walks tried per game before the check below gives up


def _reaching_walk(name: str) -> tuple | None:
    """The first of a fixed series of walks of `name` that reaches a board two actions book differently: searched,
    not pinned, so that a change to a game's rules moves the walk rather than emptying the check."""
    for n in range(TRIES):
        params = (name, n, n // 3, n // 2, n, 12)
        game, walk = random_walk(*params)
        if any(_never_chooses(game, state) for state in walk):
            return params
    return None


def test_the_walks_reach_boards_that_book_differently_in_every_game():
    """The property above is not vacuous: walks like its own reach such boards in every game (Orbital Battle's
    combat from its scenario: the companion's roll and the table's dice book the same removal differently)."""
    for name in ("periorbis", "trajectory", "dakalio", "orbit"):
        assert _reaching_walk(name) is not None, f"no walk of {name} reached a board two actions book differently"
    combat = load_scenario(SCENARIOS / "orbital_battle" / "combat_win_by_three_destroys.json")
    assert _never_chooses(combat.game, _initial_state(combat))


def _never_chooses(game, state) -> int:
    """Checks every board of `state` that legal actions book differently; returns how many there were."""
    name = game.name
    referee = Referee(game)
    by_board: dict[str, list] = {}
    for candidate in referee.prepare(state).candidates:
        by_board.setdefault(json.dumps(sorted(candidate.after.items())), []).append(candidate)
    sites = [s.id for s in default_board(name).sites]
    conflicts = 0
    for candidates in by_board.values():
        outcomes = {json.dumps(game.state_to_json(game.apply(state, c.action)[0]), sort_keys=True) for c in candidates}
        if len(outcomes) < 2:
            continue
        conflicts += 1
        for camera in (False, True):
            ruling = referee.judge(state, readings(game, candidates[0].after, sites, camera))
            assert ruling.verdict != "explained", (name, [str(c.action) for c in candidates])
            if ruling.verdict == "ambiguous":  # every way the board could have come about is a choice
                chosen = {
                    json.dumps(game.state_to_json(game.apply(state, a)[0]), sort_keys=True) for a in ruling.actions
                }
                assert outcomes <= chosen
    return conflicts
