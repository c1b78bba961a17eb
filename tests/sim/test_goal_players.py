"""The twin's scripted players play each game to its real end and do what the game is about, as the events of the
rules engine show (not the players' own bookkeeping)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from companion.rules import load
from companion.sim.players import scripted_action

PLAYERS = ("red", "green", "blue", "yellow")
# What each game's players are for, counted from the rules' events.
PURPOSE = {
    "dakalio": lambda e: e.type == "capture",
    "trajectory": lambda e: e.type == "built",
    "periorbis": lambda e: e.type == "contract" and e.data.get("credits", 0) > 0,
    "orbital_battle": lambda e: e.type in ("combat", "unloaded"),
}


def play(name: str, players: int, options: dict, seed: int, limit: int) -> tuple[int, Counter[str]]:
    game = load(name)
    state = game.setup(list(PLAYERS[:players]), options, seed)
    rng, counted, actions = random.Random(seed), Counter[str](), 0
    while game.outcome(state) is None:
        assert actions < limit, f"{name} did not end within {limit} actions"
        state, events = game.apply(state, scripted_action(game, state, rng))
        actions += 1
        counted.update(e.type for e in events if PURPOSE[name](e))
    return actions, counted


def total(runs: list[Counter[str]]) -> Counter[str]:
    out: Counter[str] = Counter()
    for run in runs:
        out.update(run)
    return out


@pytest.mark.parametrize("mode", ["simple", "supremacy"])
def test_dakalio_players_capture(mode: str) -> None:
    runs = [play("dakalio", 2, {"mode": mode}, seed, 400)[1] for seed in (1, 2)]
    assert total(runs)["capture"] > 0


@pytest.mark.parametrize("players", [1, 3])
def test_trajectory_players_build_stations(players: int) -> None:
    runs = [play("trajectory", players, {}, seed, 1500)[1] for seed in (1, 3, 4)]
    assert total(runs)["built"] > 0


@pytest.mark.parametrize("players", [2, 4])
def test_periorbis_players_fill_contracts(players: int) -> None:
    runs = [play("periorbis", players, {"length": "short"}, seed, 1000)[1] for seed in (1, 2, 3)]
    assert total(runs)["contract"] > 0


def test_orbital_battle_players_fight_and_land() -> None:
    runs = [play("orbital_battle", 2, {"turn_limit": 6}, seed, 2000)[1] for seed in (1, 2)]
    assert total(runs)["combat"] > 0 and total(runs)["unloaded"] > 0


def test_players_are_pure_functions_of_game_state_and_rng() -> None:
    game = load("periorbis")
    state = game.setup(["red", "green"], {}, 5)
    picks = {scripted_action(game, state, random.Random(9)) for _ in range(3)}
    assert len(picks) == 1
