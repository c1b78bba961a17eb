"""The referee: which legal action explains what the board shows now?

Pure functions of the rules, a state and an observation. The board is compared with the layout each legal action
would lead to: the actions whose layouts agree with everything the sensors know are the candidates. Exactly one
board outcome is accepted; several are asked about; none is explained as the pieces to put right. A change is
never guessed: where the sensors cannot tell two outcomes apart, the phones decide.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from companion.rules import Action, Game
from companion.rules.engine import Layout
from companion.table.observation import Observation, same_piece

Verdict = Literal["unchanged", "explained", "ambiguous", "mismatch"]


@dataclass(frozen=True)
class Fix:
    """One thing to put right: a site, what the sensors see there and what the rules expect there."""

    site: str
    seen: str
    expected: tuple[str, ...]
    advice: str


@dataclass(frozen=True)
class Ruling:
    verdict: Verdict
    actions: tuple[Action, ...] = ()  # explained: the action; ambiguous: one per distinct board outcome
    fixes: tuple[Fix, ...] = ()  # mismatch: how to make the board match the game again


def disagreements(
    layout: Layout, observation: Observation, sites: Iterable[str], physical: Callable[[str], str] = same_piece
) -> list[str]:
    """The sites among `sites` whose readings contradict `layout`; `physical` names the piece in the box a layout
    name stands for (Game.physical_piece)."""
    return [s for s in sites if not observation.agrees(s, tuple(layout.get(s, ())), physical)]


def board_actions(game: Game, state: Any) -> list[tuple[Action, Layout]]:
    """Legal board moves (see Game.board_moves) that change where pieces stand, with the layout each leads to."""
    before = game.layout(state)
    found = []
    for action in game.legal_actions(state):
        if action.type not in game.board_moves:
            continue
        after = game.layout(game.apply(state, action)[0])
        if after != before:
            found.append((action, after))
    return found


def judge(game: Game, state: Any, observation: Observation, name: Any = None) -> Ruling:
    """Compare the settled board with the game; `name(site)` turns a site id into words for the advice."""
    name = name or (lambda site: site)
    layout = game.layout(state)
    sites = observation.known_sites()
    physical = game.physical_piece
    if not disagreements(layout, observation, sites, physical):
        return Ruling("unchanged")
    # One candidate per distinct game state: actions that leave the same state (a piece entering by either of two
    # lines to the same spot) are the same move; actions that leave the same board but different books are not.
    outcomes: dict[Any, Action] = {}
    for action, after in board_actions(game, state):
        if not disagreements(after, observation, sites, physical):
            key = json.dumps(game.state_to_json(game.apply(state, action)[0]), sort_keys=True)
            outcomes.setdefault(key, action)
    if len(outcomes) == 1:
        return Ruling("explained", tuple(outcomes.values()))
    if outcomes:
        return Ruling("ambiguous", tuple(outcomes.values()))
    return Ruling("mismatch", fixes=tuple(_fixes(layout, observation, sites, name, physical)))


def _fixes(layout: Layout, observation: Observation, sites: Iterable[str], name: Any,
           physical: Callable[[str], str] = same_piece) -> list[Fix]:
    fixes = []
    for site in sorted(disagreements(layout, observation, sites, physical)):
        reading = observation.reading(site)
        expected = tuple(layout.get(site, ()))
        shown = observation.shown(expected, physical)
        where = name(site)
        seen = reading.pieces
        # What the camera saw that should not be there, and what it should have seen (a partial reading may hide
        # pieces under those it saw, so only an empty one says a piece is missing).
        extra = list((Counter(seen) - Counter(shown)).elements()) if seen is not None else []
        missing = []
        if seen is not None and not (reading.partial and seen):
            missing = list((Counter(shown) - Counter(seen)).elements())
        if extra or missing:
            parts = [f"take {', '.join(extra)} off {where}"] if extra else []
            parts += [f"put {', '.join(missing)} on {where}"] if missing else []
            advice, what = " and ".join(parts), ", ".join(seen or ()) or "nothing"
        elif seen is not None:  # the camera sees what it should: a piece the grid cannot feel, or a switch stuck
            what, advice = ", ".join(seen) or "nothing", f"check {where}: the grid and the camera disagree there"
        elif reading.occupied:
            what, advice = "a piece", f"take the piece off {where}: nothing should stand there"
        else:
            what, advice = "nothing", f"put {', '.join(expected)} back on {where}"
        fixes.append(Fix(site, what, expected, advice[0].upper() + advice[1:] + "."))
    return fixes
