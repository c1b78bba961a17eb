"""Scientist and miner actions: research, sell research data, mine ore at a base."""

from __future__ import annotations

from dataclasses import replace

from companion.rules.engine import Action, Event, IllegalAction
from companion.rules.periorbis.datafiles import ORES
from companion.rules.periorbis.staff import done, employee_action, whole
from companion.rules.periorbis.state import RESEARCH_PRICE, State
from companion.rules.periorbis.text import employee, money, place, plural, who


def research(state: State, action: Action) -> tuple[State, list[Event]]:
    acting = employee_action(state, action)
    made = acting.card.skills.research
    books = replace(acting.books, research=acting.books.research + made)
    state = done(state, acting, books)
    text = f"{who(acting.player)}'s {employee(acting.slot)} researches: {made} research data"
    text += f" (the lab holds {books.research})."
    return state, [Event("research", text, {"player": acting.player, "research": made})]


def sell_research(state: State, action: Action) -> tuple[State, list[Event]]:
    acting = employee_action(state, action)
    amount = whole(action, "data")
    limit = acting.card.skills.research
    if amount > limit:
        raise IllegalAction(f"{employee(acting.slot)} can sell at most {limit} research data in one action")
    if amount > acting.books.research:
        raise IllegalAction(f"{who(acting.player)}'s lab holds {acting.books.research} research data")
    credits = amount * RESEARCH_PRICE
    books = replace(acting.books, research=acting.books.research - amount, credits=acting.books.credits + credits)
    state = done(state, acting, books)
    text = f"{who(acting.player)}'s {employee(acting.slot)} sells {amount} research data for {money(credits)}."
    return state, [Event("sell-research", text, {"player": acting.player, "research": amount, "credits": credits})]


def mine(state: State, action: Action) -> tuple[State, list[Event]]:
    acting = employee_action(state, action, on_base=True)
    ore = action.get("ore")
    if ore not in ORES:
        raise IllegalAction(f"say which ore to mine: black, grey or white, not {ore!r}")
    asteroid = acting.books.employees[str(acting.slot)].where
    crates = getattr(acting.card.skills, ore)
    if crates == 0:
        raise IllegalAction(f"only a specialist miner can mine {ore} ore")
    left = getattr(state.ore[asteroid], ore)
    if left == 0:
        raise IllegalAction(f"{place(asteroid)} has no {ore} ore left")
    state = replace(state, ore={**state.ore, asteroid: replace(state.ore[asteroid], **{ore: left - 1})})
    base = acting.books.bases[asteroid]
    books = replace(acting.books, bases={**acting.books.bases, asteroid: replace(base, crates=base.crates + crates)})
    state = done(state, acting, books)
    text = (
        f"{who(acting.player)}'s {employee(acting.slot)} mines {ore} ore on {place(asteroid)}: "
        f"{plural(crates, 'crate')} beside the base ({left - 1} {ore} ore left)."
    )
    return state, [Event("mine", text, {"player": acting.player, "asteroid": asteroid, "ore": ore, "crates": crates})]
