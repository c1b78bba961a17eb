"""Agent actions: sign a trading ship's contract, sell ore from storage to the local traders."""

from __future__ import annotations

from dataclasses import replace

from companion.rules.engine import Action, Event, IllegalAction
from companion.rules.periorbis.staff import done, employee_action, whole
from companion.rules.periorbis.state import SELL_PRICE, Contract, State, find_ship, ship_card, with_ship
from companion.rules.periorbis.text import employee, money, plural, ship_name, vp, who


def sign(state: State, action: Action) -> tuple[State, list[Event]]:
    acting = employee_action(state, action)
    index = find_ship(state, action.get("ship"))
    if index is None:
        ships = ", ".join(s.card for s in state.ships) or "none"
        raise IllegalAction(f"no trading ship {action.get('ship')!r} is in orbit (ships: {ships})")
    ship = state.ships[index]
    row = whole(action, "row")
    if row > len(ship.rows):
        raise IllegalAction(f"the {ship_name(state, ship.card)} has rows 1 to {len(ship.rows)}, not row {row}")
    player = acting.player
    name = ship_name(state, ship.card)
    if any(c is not None and c.player == player for c in ship.rows):
        raise IllegalAction(f"{who(player)} already has a contract on the {name}; one row a ship")
    taken = ship.rows[row - 1]
    if taken is not None:
        raise IllegalAction(f"row {row} of the {name} is already signed by {who(taken.player)}")
    terms = ship_card(state, ship).rows[row - 1]
    bonus = acting.card.skills.contract
    rows = tuple(Contract(player, 0, bonus) if i == row - 1 else c for i, c in enumerate(ship.rows))
    state = with_ship(state, index, replace(ship, rows=rows))
    state = done(state, acting, replace(acting.books, credits=acting.books.credits + terms.advance))
    cubes = f" and places {plural(bonus, 'agent bonus cube')}" if bonus else ""
    text = (
        f"{who(player)}'s {employee(acting.slot)} signs row {row} of the {name} (contract size {terms.size}), "
        f"takes an advance of {money(terms.advance)}{cubes}."
    )
    data = {"player": player, "ship": ship.card, "row": row, "advance": terms.advance, "bonus": bonus}
    return state, [Event("sign", text, data)]


def sell_ore(state: State, action: Action) -> tuple[State, list[Event]]:
    acting = employee_action(state, action)
    crates = whole(action, "crates")
    skills, books = acting.card.skills, acting.books
    if crates > skills.sell:
        raise IllegalAction(f"{employee(acting.slot)} can sell at most {plural(skills.sell, 'crate')} in one action")
    if crates > books.storage:
        raise IllegalAction(f"{who(acting.player)} has {plural(books.storage, 'crate')} in the HQ storage")
    credits = crates * (SELL_PRICE + skills.contract)
    books = replace(books, storage=books.storage - crates, credits=books.credits + credits, vp=books.vp + crates)
    state = done(state, acting, books)
    text = (
        f"{who(acting.player)}'s {employee(acting.slot)} sells {plural(crates, 'crate')} of ore from storage for "
        f"{money(credits)} and {vp(crates)}."
    )
    return state, [Event("sell-ore", text, {"player": acting.player, "crates": crates, "credits": credits})]
