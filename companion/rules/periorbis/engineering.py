"""Engineer actions: build a mining base, develop HQ slots 6 and 7, upgrade the fleet and the drive."""

from __future__ import annotations

from dataclasses import replace

from companion.rules.engine import Action, Event, IllegalAction
from companion.rules.periorbis.staff import done, employee_action, pay
from companion.rules.periorbis.state import (
    DEVELOP_COST,
    UPGRADE_COST,
    Base,
    State,
    accessible,
    data,
    reach,
)
from companion.rules.periorbis.text import employee, money, place, who


def free_slot(state: State, asteroid: str) -> int | None:
    """The next base slot nobody has built on (slots are taken in the data file's order), or None."""
    taken = {b.bases[asteroid].slot for b in state.books.values() if asteroid in b.bases}
    slots = data(state).asteroid(asteroid).slots
    return next((i for i in range(1, len(slots) + 1) if i not in taken), None)


def build(state: State, action: Action) -> tuple[State, list[Event]]:
    acting = employee_action(state, action)
    asteroid = action.get("asteroid")
    if asteroid not in state.ore:
        raise IllegalAction(f"there is no asteroid {asteroid!r} in this game (asteroids: {', '.join(state.ore)})")
    player, books = acting.player, acting.books
    if asteroid in books.bases:
        raise IllegalAction(f"{who(player)} already has a mining base on {place(asteroid)}")
    if not accessible(state, player, asteroid):
        raise IllegalAction(_unreachable(state, player, asteroid))
    slot = free_slot(state, asteroid)
    if slot is None:
        raise IllegalAction(f"every base slot on {place(asteroid)} is taken")
    cost = max(0, data(state).asteroid(asteroid).slots[slot - 1] - acting.card.skills.build)
    books = pay(books, cost, f"a mining base on {place(asteroid)}", player)
    books = replace(books, bases={**books.bases, asteroid: Base(slot)})
    state = done(state, acting, books)
    text = f"{who(player)}'s {employee(acting.slot)} builds a mining base on {place(asteroid)} for {money(cost)}."
    return state, [Event("build", text, {"player": player, "asteroid": asteroid, "slot": slot, "cost": cost})]


def _unreachable(state: State, player: str, asteroid: str) -> str:
    level = reach(state).get(asteroid)
    if level is None:
        return f"{place(asteroid)} is not on the orbit track this turn and cannot be reached"
    drive = state.books[player].drive
    return f"{place(asteroid)} needs drive level {level} this turn; {who(player)} has drive level {drive}"


def develop(state: State, action: Action) -> tuple[State, list[Event]]:
    acting = employee_action(state, action)
    slot = action.get("slot")
    if slot not in DEVELOP_COST:
        raise IllegalAction(f"only HQ slots 6 and 7 are developed, not {slot!r}")
    books = acting.books
    if slot in books.developed:
        raise IllegalAction(f"HQ slot {slot} is already developed")
    cost = max(0, DEVELOP_COST[slot] - acting.card.skills.build)
    books = pay(books, cost, f"HQ slot {slot}", acting.player)
    state = done(state, acting, replace(books, developed=tuple(sorted((*books.developed, slot)))))
    text = f"{who(acting.player)}'s {employee(acting.slot)} develops HQ slot {slot} for {money(cost)}."
    return state, [Event("develop", text, {"player": acting.player, "slot": slot, "cost": cost})]


def _upgrade(state: State, action: Action, track: str) -> tuple[State, list[Event]]:
    acting = employee_action(state, action)
    books = acting.books
    limit = data(state).setup.fleet_max if track == "fleet" else data(state).setup.drive_levels
    name = "fleet capacity" if track == "fleet" else "drive level"
    if getattr(books, track) >= limit:
        raise IllegalAction(f"{who(acting.player)}'s {name} is already at the top of its track ({limit})")
    cost = max(0, UPGRADE_COST - acting.card.skills.upgrade)
    if books.research < cost:
        raise IllegalAction(
            f"{who(acting.player)} needs {cost} research data to upgrade; the lab holds {books.research}"
        )
    level = getattr(books, track) + 1
    books = replace(books, research=books.research - cost, **{track: level})
    state = done(state, acting, books)
    text = f"{who(acting.player)}'s {employee(acting.slot)} raises the {name} to {level} for {cost} research data."
    return state, [Event(f"upgrade-{track}", text, {"player": acting.player, track: level, "research": cost})]


def upgrade_fleet(state: State, action: Action) -> tuple[State, list[Event]]:
    return _upgrade(state, action, "fleet")


def upgrade_drive(state: State, action: Action) -> tuple[State, list[Event]]:
    return _upgrade(state, action, "drive")
