"""Pure game engines: no I/O, no clocks, no randomness but the seeded Rng inside each state.

>>> from companion.rules import load, names
>>> load("trajectory").title
'Trajectory'
"""

from __future__ import annotations

import importlib

from companion.rules.engine import Action, Event, Game, IllegalAction, Outcome, Phase, SetupError

__all__ = ["DEFAULT", "Action", "Event", "Game", "IllegalAction", "Outcome", "Phase", "SetupError", "load", "names"]

# The game a table, the demo and the commands take when none is named: the one quickest to set out.
DEFAULT = "trajectory"

# name -> module that defines GAME; imported on first use so one game's code never slows another's start.
_REGISTRY = {
    "dakalio": "companion.rules.dakalio",
    "orbit": "companion.rules.orbit",
    "orbital_battle": "companion.rules.orbital_battle",
    "periorbis": "companion.rules.periorbis",
    "trajectory": "companion.rules.trajectory",
}


def names() -> list[str]:
    """The games the companion referees, by their registry name."""
    return sorted(_REGISTRY)


def load(name: str) -> Game:
    """The engine of a game by name; raises KeyError with the known names for an unknown one."""
    try:
        module = _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r} (known: {', '.join(names())})") from None
    return importlib.import_module(module).GAME
