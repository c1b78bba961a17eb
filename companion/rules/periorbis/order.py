"""Player order: victory points, then the wage bill, then the highest employee number decide who is "winning"."""

from __future__ import annotations

from dataclasses import replace

from companion.rules.engine import Event
from companion.rules.periorbis.state import State, top_number, wage_bill
from companion.rules.periorbis.text import who


def ranking_key(state: State, player: str) -> tuple[int, int, int]:
    books = state.books[player]
    return (books.vp, wage_bill(state, player), top_number(state, player))


def update(state: State) -> tuple[State, list[Event]]:
    """Reset the player order track. Players still tied keep their old relative order (the rulebook stops at the
    third tie-break)."""
    order = tuple(sorted(state.order, key=lambda p: ranking_key(state, p), reverse=True))
    acting = ", ".join(who(p) for p in reversed(order))
    event = Event("order", f"Player order updated; players now act in this order: {acting}.", {"order": list(order)})
    return replace(state, order=order), [event]
