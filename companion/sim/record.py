"""Recording a whole game played by the twin's scripted players as a scenario file (docs/scenarios.md).

A recorded game pins the engine down from the setup to the end: every action must still be accepted, each turn must
pass to the same player in the same round, and the game must end with the same outcome and the same books. It is how
the project keeps whole games among its scenarios, and how anyone can keep a game of their own as a regression test.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from companion import codec
from companion.errors import UserError
from companion.rules import SetupError, load, names
from companion.sim.players import scripted_action


def record_game(
    game_name: str, players: Sequence[str], options: Mapping[str, Any], seed: int, max_actions: int = 5000
) -> dict[str, Any]:
    """A scenario (in its JSON form) of one whole game played by the scripted players from this setup."""
    if game_name not in names():
        raise UserError(f"unknown game {game_name!r} (known: {', '.join(names())})")
    game = load(game_name)
    try:
        state = game.setup(list(players), dict(options), seed)
    except SetupError as error:
        raise UserError(f"{game_name}: {error}") from None
    rng = random.Random(seed)
    steps: list[dict[str, Any]] = []
    while game.outcome(state) is None:
        if len(steps) == max_actions:
            raise UserError(f"{game.title}: the game did not end within {max_actions} actions; nothing written")
        action = scripted_action(game, state, rng)
        before = game.phase(state)
        state = game.apply(state, action)[0]
        step: dict[str, Any] = {"action": action.to_json()}
        after = game.phase(state)
        if (after.actor, after.round) != (before.actor, before.round):
            step["expect"] = {"phase": {"actor": after.actor, "round": after.round}}
        steps.append(step)
    outcome = game.outcome(state)
    steps[-1]["expect"] = {"outcome": codec.to_json(outcome), "ledger": codec.to_json(game.ledger(state))}
    return {
        "name": f"a whole {game.title} game to its end ({len(players)} players, seed {seed})",
        "description": "Recorded from the scripted players (companion scenario record): every action, each turn's "
        "hand-over, and the outcome and books at the end.",
        "game": game_name,
        "players": list(players),
        "options": dict(options),
        "seed": seed,
        "steps": steps,
    }
