"""What every employee action shares: whose turn, which employee, where they stand, and the wage rule."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from companion.rules.engine import Action, IllegalAction
from companion.rules.periorbis.datafiles import Card
from companion.rules.periorbis.state import (
    RESEARCH_PRICE,
    SELL_PRICE,
    Books,
    Employee,
    State,
    card,
    wages_due,
    with_books,
)
from companion.rules.periorbis.text import employee, money, place, who


@dataclass(frozen=True)
class Acting:
    player: str
    books: Books
    slot: int
    card: Card


def whole(action: Action, name: str, low: int = 1) -> int:
    """A whole-number argument of at least `low`."""
    value: Any = action.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise IllegalAction(f"say {name} as a whole number of at least {low}, not {value!r}")
    return value


def acting_player(state: State) -> str:
    if state.stage != "actions" or state.active is None:
        raise IllegalAction(f"that is done in the employee actions phase; it is the {state.stage} phase now")
    return state.active.player


def unacted(state: State, player: str, action: Action, why: str = "") -> tuple[int, Employee]:
    """The HQ slot the action's `employee` names and the employee in it, who has not acted this turn."""
    slot = whole(action, "employee")
    hired = state.books[player].employees.get(str(slot))
    if hired is None:
        raise IllegalAction(f"{who(player)} has no employee in HQ slot {slot}")
    assert state.active is not None
    if slot in state.active.acted:
        raise IllegalAction(f"{employee(slot)} has already acted this turn{why}")
    return slot, hired


def employee_action(state: State, action: Action, on_base: bool = False) -> Acting:
    """The employee the action names, checked free to act: in the HQ (or, to mine, on a base), not yet acted."""
    player = acting_player(state)
    slot, hired = unacted(state, player, action)
    books = state.books[player]
    if on_base and hired.where == "hq":
        raise IllegalAction(f"{employee(slot)} is at the HQ; only an employee on a mining base can mine")
    if not on_base and hired.where != "hq":
        raise IllegalAction(f"{employee(slot)} is on the mining base on {place(hired.where)} and can only mine")
    return Acting(player, books, slot, card(state, hired.card))


def can_still_pay(state: State) -> bool:
    """Whether the acting player can pay the wages due at the end of the turn: from the credits in hand, or after
    employees who have not acted yet sell research data from the lab or ore from storage (each sale paying more than
    the seller's own wage). A plan found here is one the player can carry out, so a turn is never left unpayable."""
    assert state.active is not None
    turn = state.active
    books = state.books[turn.player]
    credits, due, lab, store = books.credits, wages_due(state), books.research, books.storage
    free = [
        card(state, e.card) for slot, e in books.employees.items() if int(slot) not in turn.acted and e.where == "hq"
    ]
    free.sort(key=lambda c: -max(c.skills.research * RESEARCH_PRICE, c.skills.sell * (SELL_PRICE + c.skills.contract)))
    for seller in free:
        if credits >= due:
            break
        data, crates = min(seller.skills.research, lab), min(seller.skills.sell, store)
        by_research, by_ore = data * RESEARCH_PRICE, crates * (SELL_PRICE + seller.skills.contract)
        if max(by_research, by_ore) <= seller.wage:
            continue
        if by_research >= by_ore:
            lab, credits = lab - data, credits + by_research
        else:
            store, credits = store - crates, credits + by_ore
        due += seller.wage
    return credits >= due


def done(state: State, who_acted: Acting, books: Books) -> State:
    """Record the new books and that the employee acted; refused if the wages could not be paid by the end of the
    turn (rulebook: an employee acts only if they will be paid then), selling research or ore first included."""
    state = with_books(state, who_acted.player, books)
    assert state.active is not None
    state = replace(state, active=replace(state.active, acted=(*state.active.acted, who_acted.slot)))
    if not can_still_pay(state):
        due = wages_due(state)
        raise IllegalAction(
            f"{employee(who_acted.slot)} cannot act: {who(who_acted.player)} would owe {money(due)} of wages at the "
            f"end of the turn, would have {books.credits}, and could not sell enough research or ore to pay them"
        )
    return state


def pay(books: Books, credits: int, what: str, player: str) -> Books:
    if books.credits < credits:
        raise IllegalAction(f"{who(player)} needs {money(credits)} for {what}; {who(player)} has {books.credits}")
    return replace(books, credits=books.credits - credits)
