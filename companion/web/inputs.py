"""What a phone can do now: the legal actions the board cannot show (declared inputs), and the board moves that an
override may accept, each labelled with the sentence its events would announce."""

from __future__ import annotations

from typing import Any

from companion.rules import Action, Game


def _label(game: Game, state: Any, action: Action, chance: bool) -> str:
    if chance:
        # Applying it would draw from the state's generator: its sentence would give the result away.
        return f"{action.type.replace('_', ' ').capitalize()}: the companion draws, rolls or spins for the table."
    _, events = game.apply(state, action)
    return " ".join(event.text for event in events) or str(action)


def _listed(game: Game, state: Any, board: bool) -> list[dict[str, Any]]:
    actions = [a for a in game.legal_actions(state) if (a.type in game.board_moves) == board]
    with_args = {a.type for a in actions if a.args}
    return [
        {
            "type": action.type,
            "action": action.to_json(),
            "label": _label(game, state, action, chance=not action.args and action.type in with_args),
        }
        for action in actions
    ]


def phone_inputs(game: Game, state: Any) -> list[dict[str, Any]]:
    """Declared inputs: the legal actions whose type is not a board move (a card drawn, a trade, the end of a turn)."""
    return _listed(game, state, board=False)


def board_inputs(game: Game, state: Any) -> list[dict[str, Any]]:
    """The legal board moves, for a player who overrides a mismatch: "accept this move although the board differs"."""
    return _listed(game, state, board=True)
