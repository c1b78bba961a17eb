"""Scripted players for the twin and the benchmarks: they pick among the legal actions at random.

The choice is uniform over the kinds of action first, then over the actions of that kind, so a turn mixes flying,
trading and building instead of drowning in the many ways to hand over fuel one token at a time.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from companion.rules import Action, Event, Game

GIVING_UP = {"resign", "concede"}


def random_action(game: Game, state: Any, rng: random.Random) -> Action:
    by_type: dict[str, list[Action]] = {}
    for action in game.legal_actions(state):
        by_type.setdefault(action.type, []).append(action)
    if not by_type:
        raise RuntimeError(f"{game.name}: no legal action in phase {game.phase(state)}")
    # Scripted players give up only when nothing else is left, as people do; otherwise most games would end early.
    kinds = sorted(by_type.keys() - GIVING_UP) or sorted(by_type)
    kind = rng.choice(kinds)
    return rng.choice(by_type[kind])


@dataclass(frozen=True)
class Move:
    action: Action
    events: list[Event]
    state: Any


def playout(game: Game, state: Any, seed: int, max_actions: int = 20_000) -> Iterator[Move]:
    """Play random legal actions until the game ends (or `max_actions` have been played)."""
    rng = random.Random(seed)
    for _ in range(max_actions):
        if game.outcome(state) is not None:
            return
        action = random_action(game, state, rng)
        state, events = game.apply(state, action)
        yield Move(action, events, state)
