"""What a phone can do now: every legal action, labelled with the sentence applying it would announce, with what it
does to the board (the sites a piece leaves and the sites a piece arrives on, so that the map can offer a piece's
moves) and its arguments in words (so that the page can pick one step at a time: a unit, then a hex).

An action that takes a chance (a roll, a draw: it changes what the game keeps hidden, `Game.hidden`) is never
labelled by applying it, or its label would tell the result: it is named by its arguments, and what it does to the
board is only what it does whatever the chance (the same under two generators no phone knows)."""

from __future__ import annotations

from typing import Any

from companion.rules import Action, Game
from companion.rules.rng import Rng
from companion.web.words import Words

BLIND = (Rng.seeded(0x0DDBA11), Rng.seeded(0xC0FFEE))  # generators for what a chance does whatever its result


def _changes(before: dict[str, Any], after: dict[str, Any]) -> tuple[list[str], list[str], list[str]]:
    """The sites a piece leaves, the sites a piece arrives on, and the pieces that go or come."""
    left, arrived, pieces = [], [], []
    for site in sorted(set(before) | set(after)):
        old, new = list(before.get(site, ())), list(after.get(site, ()))
        gone = [p for p in old if p not in new or old.count(p) > new.count(p)]
        came = [p for p in new if p not in old or new.count(p) > old.count(p)]
        if gone:
            left.append(site)
        if came:
            arrived.append(site)
        pieces += [p for p in gone + came if p not in pieces]
    return left, arrived, pieces


def _steps(game: Game, state: Any, action: Action, words: Words) -> list[list[Any]]:
    """[name, value, words] per argument in the order the game declares them (a unit, then where it goes); a list of
    numbers (two dice) gives one step per element, [name, value, words, the list's name], each named as the game
    names it (whose die) or by its number; any other list (the units attacking together) one step. A value is said
    as the game names it where it is a code (a card's id), else in the table's words."""
    steps: list[list[Any]] = []
    rank = {key: i for i, key in enumerate(game.actions.get(action.type, {}))}

    def said(key: str, value: Any) -> str:
        return game.said(state, key, value) or words.value(value)

    for key, value in sorted(action.args, key=lambda arg: rank.get(arg[0], len(rank))):
        if isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
            listed, parts = words.key(key), game.parts(state, action, key)
            steps += [[parts[i] if parts and i < len(parts) else f"{listed} {i + 1}", v, words.value(v), listed]
                      for i, v in enumerate(value)]  # fmt: skip
        elif isinstance(value, (list, tuple)):
            steps.append([words.key(key), list(value), " and ".join(said(key, v) for v in value)])
        else:
            steps.append([words.key(key), value, said(key, value)])
    return steps


def _whatever_the_chance(game: Game, state: Any, action: Action, before: dict) -> tuple[list, list, list]:
    """The sites and pieces an action changes under every blind generator: what it does whatever its result."""
    seen = [_changes(before, game.layout(game.apply(game.conceal(state, rng), action)[0])) for rng in BLIND]
    return tuple([item for item in part if all(item in other[n] for other in seen)]  # type: ignore[return-value]
                 for n, part in enumerate(seen[0]))  # fmt: skip


def inputs(game: Game, state: Any, words: Words) -> list[dict[str, Any]]:
    """Every legal action for the page: type, action, label, board (a board move), chance, from, to, pieces, at (the
    sites of the pieces it acts on where they stand: an attack's target), steps, group (the heading the game gives it
    in a long list)."""
    actions = list(game.legal_actions(state))
    before = game.layout(state)
    hidden = game.hidden(state)
    listed = []
    for action in actions:
        after, events = game.apply(state, action)
        chance = game.hidden(after) != hidden
        steps = _steps(game, state, action, words)
        if chance:  # its sentence would give the result away: named by what is chosen
            said = ", ".join(step[2] for step in steps)
            label = f"{words.key(action.type)}{' ' + said if said else ''}: the companion {_draws(action.type)}."
            left, arrived, pieces = _whatever_the_chance(game, state, action, before)
        else:
            label = words.text(" ".join(event.text for event in events)) or words.key(action.type)
            left, arrived, pieces = _changes(before, game.layout(after))
        listed.append(
            {
                "type": action.type,
                "title": words.key(action.type),
                "action": action.to_json(),
                "label": label,
                "board": action.type in game.board_moves,
                "chance": chance,
                "from": left,
                "to": arrived,
                "pieces": [words.piece(p) for p in pieces],
                "at": list(game.aimed_at(state, action)),
                "steps": steps,
                "group": game.group(state, action),
            }
        )
    return listed


def _draws(kind: str) -> str:
    """What the companion does for the table: rolls the dice, draws a card, spins the spinner (a chance taken at the
    end of a turn: the cards that arrive are drawn)."""
    if "draw" in kind or "end" in kind or "pass" in kind:
        return "draws for the table"
    if "spin" in kind or "search" in kind:
        return "spins for the table"
    return "rolls the dice"
