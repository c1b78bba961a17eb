"""The captain's Transport Cargo action: opened by one employee, then each item of cargo declared in turn.

Every employee or ore crate carried uses one of the captain's skill points and one point of the fleet capacity the
player has for the whole turn. The action stays open for more cargo until the player does anything else.
"""

from __future__ import annotations

from dataclasses import replace

from companion.rules.engine import Action, Event, IllegalAction
from companion.rules.periorbis.staff import acting_player, done, employee_action, unacted, whole
from companion.rules.periorbis.state import State, accessible, card, find_ship, ship_card, with_books, with_ship
from companion.rules.periorbis.text import employee, place, plural, ship_name, who


def transport(state: State, action: Action) -> tuple[State, list[Event]]:
    acting = employee_action(state, action)
    assert state.active is not None
    left = acting.books.fleet - state.active.cargo
    if left <= 0:
        raise IllegalAction(f"{who(acting.player)}'s fleet capacity of {acting.books.fleet} is used up this turn")
    state = done(state, acting, acting.books)
    state = replace(state, active=replace(state.active, captain=acting.slot, carried=0))
    most = min(left, acting.card.skills.captain)
    text = f"{who(acting.player)}'s {employee(acting.slot)} transports cargo: up to {plural(most, 'item')}."
    return state, [Event("transport", text, {"player": acting.player, "employee": acting.slot, "most": most})]


def _room(state: State, count: int) -> str:
    """The acting player, once the open captain and the fleet both have room for `count` more cargo."""
    player = acting_player(state)
    turn = state.active
    assert turn is not None
    if turn.captain is None:
        raise IllegalAction("no Transport Cargo action is open: an employee must start one first")
    books = state.books[player]
    skill = card(state, books.employees[str(turn.captain)].card).skills.captain
    if turn.carried + count > skill:
        raise IllegalAction(
            f"{employee(turn.captain)} can carry {plural(skill, 'item')} in all and has carried {turn.carried}"
        )
    if turn.cargo + count > books.fleet:
        raise IllegalAction(f"{who(player)}'s fleet capacity is {books.fleet} a turn and {turn.cargo} has been used")
    return player


def _carried(state: State, count: int) -> State:
    assert state.active is not None
    turn = state.active
    return replace(state, active=replace(turn, carried=turn.carried + count, cargo=turn.cargo + count))


def _reachable(state: State, player: str, asteroid: str) -> None:
    if not accessible(state, player, asteroid):
        raise IllegalAction(f"{who(player)} cannot reach {place(asteroid)} this turn")


def carry(state: State, action: Action) -> tuple[State, list[Event]]:
    """Carry one employee between the HQ and a base, or between two bases."""
    player = _room(state, 1)
    slot, hired = unacted(state, player, action, " and cannot be transported")
    books = state.books[player]
    to = action.get("to")
    if to != "hq" and to not in state.ore:
        raise IllegalAction(f"carry an employee to 'hq' or to an asteroid with your base, not {to!r}")
    if to == hired.where:
        raise IllegalAction(f"{employee(slot)} is already at {place(to)}")
    if hired.where != "hq":
        _reachable(state, player, hired.where)
    if to != "hq":
        if to not in books.bases:
            raise IllegalAction(f"{who(player)} has no mining base on {place(to)}")
        _reachable(state, player, to)
    employees = {**books.employees, str(slot): replace(hired, where=to)}
    state = _carried(with_books(state, player, replace(books, employees=employees)), 1)
    text = f"{who(player)} carries {employee(slot)} from {place(hired.where)} to {place(to)}."
    return state, [Event("carry", text, {"player": player, "employee": slot, "from": hired.where, "to": to})]


def ship_ore(state: State, action: Action) -> tuple[State, list[Event]]:
    """Carry ore crates from a base to the HQ storage or a contract, or from storage to a contract."""
    crates = whole(action, "crates")
    player = _room(state, crates)
    books = state.books[player]
    source, to = action.get("from"), action.get("to")
    if source == "storage":
        have = books.storage
    elif source in books.bases:
        _reachable(state, player, source)
        have = books.bases[source].crates
    else:
        raise IllegalAction(f"ore is carried from 'storage' or from one of your bases, not {source!r}")
    if crates > have:
        raise IllegalAction(f"{who(player)} has {plural(have, 'crate')} at {place(source)}")
    if source == "storage":
        books = replace(books, storage=books.storage - crates)
    else:
        base = books.bases[source]
        books = replace(books, bases={**books.bases, source: replace(base, crates=base.crates - crates)})
    if to == "storage":
        if source == "storage":
            raise IllegalAction("the crates are already in the HQ storage")
        state = with_books(state, player, replace(books, storage=books.storage + crates))
        where = place("storage")
    else:
        index = find_ship(state, to)
        if index is None:
            raise IllegalAction(f"ore goes to 'storage' or to a trading ship in orbit, not {to!r}")
        ship = state.ships[index]
        row = next((i for i, c in enumerate(ship.rows) if c is not None and c.player == player), None)
        if row is None:
            raise IllegalAction(f"{who(player)} has no contract on the {ship_name(state, ship.card)}: sign one first")
        free = ship_card(state, ship).spaces - ship.crates
        if crates > free:
            raise IllegalAction(f"the {ship_name(state, ship.card)} has {plural(free, 'empty cargo space')}")
        contract = ship.rows[row]
        assert contract is not None
        rows = tuple(replace(c, crates=c.crates + crates) if i == row else c for i, c in enumerate(ship.rows))
        state = with_ship(with_books(state, player, books), index, replace(ship, rows=rows))
        where = f"the {ship_name(state, ship.card)}"
    state = _carried(state, crates)
    text = f"{who(player)} carries {plural(crates, 'ore crate')} from {place(source)} to {where}."
    return state, [Event("ship-ore", text, {"player": player, "from": source, "to": to, "crates": crates})]
