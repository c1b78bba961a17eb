"""Checks shared by several actions."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from companion.rules.engine import Action, IllegalAction
from companion.rules.trajectory.state import GOODS, Ship, State, with_ship
from companion.rules.trajectory.text import OUTFIT_NAMES, a, who


def active(state: State) -> tuple[str, Ship]:
    """The ship whose turn it is, once it has drawn; otherwise the action is out of turn."""
    if state.stage != "turn" or state.turn is None:
        raise IllegalAction(f"it is not a player's turn: the table must first finish the {state.stage} phase")
    if not state.turn.drawn:
        raise IllegalAction(f"{who(state.turn.ship)} must draw a card first")
    return state.turn.ship, state.ships[state.turn.ship]


def goods_of(action: Action, allowed: tuple[str, ...] = GOODS) -> dict[str, int]:
    """The amounts an action names ({"metal": 1}); at least one, all whole and positive."""
    goods = {}
    for good in allowed:
        value: Any = action.get(good)
        if value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise IllegalAction(f"the amount of {good} must be a whole number of at least 1, not {value!r}")
        goods[good] = value
    if not goods:
        raise IllegalAction(f"say how much of what: one or more of {', '.join(allowed)}")
    return goods


def needs_outfit(ship_name: str, ship: Ship, *outfits: str) -> None:
    if ship.outfit not in outfits:
        names = " or ".join(OUTFIT_NAMES[o] for o in outfits)
        has = "has no class" if ship.outfit == "none" else f"is {a(OUTFIT_NAMES[ship.outfit])}"
        raise IllegalAction(f"only {a(names)} can do that; {who(ship_name)} {has}")


def needs_card(ship_name: str, ship: Ship) -> None:
    if ship.cards < 1:
        raise IllegalAction(f"{who(ship_name)} has no action card to spend on that")


def spend_card(state: State, name: str) -> State:
    """Discard one of a ship's action cards for a special action."""
    ship = state.ships[name]
    return with_ship(state, name, replace(ship, cards=ship.cards - 1))
