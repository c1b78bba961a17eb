"""The banner counts what each game's rulebook counts: rounds of the table in ORBIT and Trajectory, game turns in
Orbital Battle (section V), the turn marker's place on Periorbis's orbit track out of its 12 (or 6) turns, and the
game of a Dakalio Supremacy match (a Simple game is one game: nothing to count)."""

from __future__ import annotations

import random
import re

import pytest

from companion.rules import load
from companion.sim.players import random_action


def counts(game: str, players: int, options: dict, steps: int) -> list[str]:
    """The banner's count after each of `steps` random moves of a game."""
    engine = load(game)
    state = engine.setup(["red", "green", "blue"][:players], options, 5)
    rng, seen = random.Random(5), []
    for _ in range(steps):
        if engine.outcome(state) is not None:
            break
        seen.append(engine.counted(state, engine.phase(state)))
        state = engine.apply(state, random_action(engine, state, rng))[0]
    return seen


@pytest.mark.parametrize(
    ("game", "players", "options", "pattern"),
    [
        ("orbit", 2, {}, r"Round \d+"),
        ("trajectory", 2, {}, r"Round \d+"),
        ("orbital_battle", 2, {}, r"Turn \d+"),
        ("periorbis", 3, {}, r"Turn \d+ of 12"),
        ("periorbis", 3, {"length": "short"}, r"Turn \d+ of 6"),
        ("dakalio", 2, {"mode": "supremacy"}, r"Game \d+"),
    ],
)
def test_the_banner_counts_what_the_rulebook_counts(game, players, options, pattern):
    seen = [count for count in counts(game, players, options, 400) if count]
    assert seen and all(re.fullmatch(pattern, count) for count in seen), sorted(set(seen))[:5]


def test_a_simple_dakalio_game_and_orbital_battles_setup_count_nothing():
    assert set(counts("dakalio", 2, {}, 60)) == {""}
    assert counts("orbital_battle", 2, {}, 3) == ["", "", ""]  # the roll and the home worlds: before turn 1
