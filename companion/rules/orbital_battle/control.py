"""Who holds which planet, what a conquest destroys, and the win at six planets."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from companion.rules.engine import Event
from companion.rules.orbital_battle.state import PLANETS, State, Unit, on_planet, removed
from companion.rules.orbital_battle.text import name, plural, who
from companion.rules.orbital_battle.units import PLANETS_TO_WIN


def holders(state: State, planet: str) -> set[str]:
    """The players with land units on a planet's map (structures hold nothing)."""
    return _holders(on_planet(state, planet))


def _holders(units: Iterable[Unit]) -> set[str]:
    return {u.owner for u in units if u.domain == "land"}


def controller(state: State, planet: str) -> str | None:
    found = holders(state, planet)
    return next(iter(found)) if len(found) == 1 else None


def contested(state: State, planet: str) -> bool:
    return len(holders(state, planet)) == 2


def controlled(state: State, player: str) -> tuple[str, ...]:
    # One pass over the units, not one per planet: asked for every kind of unit a player might buy.
    held: dict[str, set[str]] = {}
    for u in state.units:
        if u.domain == "land" and (planet := u.planet) is not None:
            held.setdefault(planet, set()).add(u.owner)
    return tuple(p for p in PLANETS if held.get(p) == {player})


def income(state: State, player: str) -> int:
    factories = sum(1 for u in state.units if u.owner == player and u.kind == "factory")
    return len(controlled(state, player)) + factories


def conquests(state: State) -> tuple[State, list[Event]]:
    """Structures on a planet its owner's enemy now controls are destroyed (the empires' equipment is foreign)."""
    events = []
    for planet, holder, lost in losses(state.units):
        state = removed(state, *lost)
        listed = ", ".join(name(u) for u in lost)
        events.append(
            Event(
                "conquered",
                f"{who(holder)} conquers planet {planet}: {listed} destroyed "
                f"(take {'them' if len(lost) > 1 else 'it'} off the planet map).",
                {"planet": planet, "player": holder, "destroyed": [u.uid for u in lost]},
            )
        )
    return state, events


def losses(units: tuple[Unit, ...]) -> list[tuple[str, str, list[Unit]]]:
    """(planet, its holder, the enemy structures a conquest destroys there) for each planet where one is due."""
    found = []
    by_planet: dict[str, list[Unit]] = {}  # one pass over the units: this runs after every action
    for u in units:
        if (planet := u.planet) is not None:
            by_planet.setdefault(planet, []).append(u)
    for planet in PLANETS:
        holding = _holders(by_planet.get(planet, ()))
        if len(holding) != 1:
            continue
        holder = next(iter(holding))
        lost = [u for u in by_planet[planet] if u.domain == "structure" and u.owner != holder]
        if lost:
            found.append((planet, holder, lost))
    return found


def victory(state: State) -> tuple[State, list[Event]]:
    """At the end of a turn: six planets win (the turn limit, when the table set one, ends the game too)."""
    counts = {p: len(controlled(state, p)) for p in state.players}
    leader = max(state.players, key=lambda p: counts[p])
    if counts[leader] >= PLANETS_TO_WIN:
        reason = f"{who(leader)} controls {plural(counts[leader], 'planet')}"
        return replace(state, stage="over", winner=leader, reason=reason), [
            Event("game-won", f"{reason}: {who(leader)} wins.", {"winner": leader, "planets": counts})
        ]
    limit = state.options.turn_limit
    if limit and state.turn >= limit:
        a, b = state.players
        if counts[a] == counts[b]:
            reason = f"the turn limit of {limit} is reached with {plural(counts[a], 'planet')} each"
            return replace(state, stage="over", winner=None, reason=reason), [
                Event("game-drawn", f"The game is drawn: {reason}.", {"planets": counts})
            ]
        reason = f"the turn limit of {limit} is reached and {who(leader)} controls the most planets ({counts[leader]})"
        return replace(state, stage="over", winner=leader, reason=reason), [
            Event("game-won", f"{who(leader)} wins: {reason}.", {"winner": leader, "planets": counts})
        ]
    return state, []
