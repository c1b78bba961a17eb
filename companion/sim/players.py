"""Scripted players for the twin and the benchmarks: they pick among the legal actions at random.

The choice is uniform over the kinds of action first, then over the actions of that kind, so a turn mixes flying,
trading and building instead of drowning in the many ways to hand over fuel one token at a time. Where random play
would not finish a game in any reasonable time (ORBIT, a race whose goal chance alone rarely reaches), or would
finish it without ever playing it (no ore mined, no landing, no station), the twin's players seek the goal
(orbit_player.py, goal_players.py) and pick at random now and then (`scripted_action`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from companion.rules import Action, Event, Game
from companion.sim import goal_players, orbit_player

GIVING_UP = {"resign", "concede"}
Chooser = Callable[[Game, Any, random.Random], Action]
# Games whose scripted players play to win (all five).
GOAL_SEEKING: dict[str, Chooser] = {"orbit": orbit_player.choose, **goal_players.PLAYERS}
WANDER = 0.08  # how often a goal-seeking player picks at random instead, so that odd choices keep coming up


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


def scripted_action(game: Game, state: Any, rng: random.Random) -> Action:
    """The twin's player: goal-seeking for the games that have one, random otherwise (and now and then)."""
    seek = GOAL_SEEKING.get(game.name)
    if seek is None or rng.random() < WANDER:
        return random_action(game, state, rng)
    return seek(game, state, rng)


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
