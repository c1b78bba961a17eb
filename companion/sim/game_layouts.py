"""Boards from real games: the layouts the twin's scripted players leave after their board moves, for the camera's
tests and bench (a camera meets these stacks and crowds at a table, not random ones)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.rules import load
from companion.rules.engine import Layout
from companion.sim.players import scripted_action

ORBIT_MODULES = {"board": "back", "prism": True, "navigation": True, "engine": True, "nebulas": True}


@dataclass(frozen=True)
class Table:
    """Who plays and with which options."""

    players: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)


# ORBIT as it is played: four players, partners, two players with two ships each, and every module on the back side.
ORBIT_TABLES = (
    Table(("red", "green", "blue", "yellow")),
    Table(("red", "green", "blue", "yellow"), {"mode": "partnership"}),
    Table(("red", "green"), {"mode": "dual"}),
    Table(("red", "green", "blue"), ORBIT_MODULES),
)
# Games whose tables differ enough to be worth going round (the rest play one table).
GAME_TABLES = {"orbit": ORBIT_TABLES}


def board_layouts(
    game: str, tables: Sequence[Table], count: int, seed: int, max_actions: int = 3000
) -> list[tuple[Table, Layout]]:
    """`count` layouts, each after a board move of a scripted game, drawn evenly from games at each table in turn
    (seeds from `seed`), in the order they were played."""
    engine = load(game)
    rng = random.Random(seed)
    out: list[tuple[Table, Layout]] = []
    game_seed = seed
    while len(out) < count:
        table = tables[(game_seed - seed) % len(tables)]
        state = engine.setup(list(table.players), dict(table.options), game_seed)
        layouts = []
        for _ in range(max_actions):
            if engine.outcome(state) is not None:
                break
            action = scripted_action(engine, state, rng)
            state = engine.apply(state, action)[0]
            if action.type in engine.board_moves:
                layouts.append(engine.layout(state))
        wanted = min(len(layouts), max(1, count // len(tables)), count - len(out))
        picks = sorted(rng.sample(range(len(layouts)), wanted)) if layouts else []
        out.extend((table, layouts[i]) for i in picks)
        game_seed += 1
    return out
