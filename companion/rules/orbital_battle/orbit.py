"""The orbit phase, planet by planet, with ships pushed out of a planet's way; then the factory phase's income."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from companion.boards.orbital_battle import ring_site
from companion.rules.engine import Action, Event, IllegalAction
from companion.rules.orbital_battle.control import controlled, income
from companion.rules.orbital_battle.geo import near, solid
from companion.rules.orbital_battle.state import PLANETS, State, moved, occupied, removed
from companion.rules.orbital_battle.text import name, place, plural, who

Result = tuple[State, list[Event]]


def ring_of(state: State, planet: str) -> int:
    rings = state.options.rings
    return rings[min(int(planet), len(rings)) - 1]


def _index(site: str) -> int:
    return int(site.split("s")[1])


def path_ahead(state: State, planet: str) -> tuple[str, str]:
    """The hex the planet moves into and the one after it along its orbit."""
    ring, i = ring_of(state, planet), _index(state.planets[planet])
    return ring_site(ring, i + 1), ring_site(ring, i + 2)


def shove_choices(state: State, planet: str) -> tuple[str, ...] | None:
    """When the planet's push lands a ship on another ship, the hexes that other ship's owner may move it to
    (off the orbit where there is room, along it only when there is none); None when no such choice arises."""
    target, beyond = path_ahead(state, planet)
    taken = occupied(state)
    if target not in taken or beyond not in taken:
        return None
    orbit = {ring_site(ring_of(state, planet), i) for i in range(6 * ring_of(state, planet))}
    free = [n for n in near(state, beyond) if n not in taken and not solid(state, n) and n != target]
    off = tuple(sorted(n for n in free if n not in orbit))
    return off or tuple(sorted(free))


def shove_plans(state: State) -> Iterator[tuple[str, ...]]:
    """Every way the ships in the planets' paths may make way this orbit phase: one hex per ship that must choose,
    in the order the planets move (one empty plan when no ship has to)."""

    def plans(state: State, planet: int, made: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
        if planet > len(PLANETS):
            yield made
            return
        choices = shove_choices(state, str(planet)) or (None,)
        for choice in choices:
            moved_on, _ = _move_planet(state, str(planet), choice)
            yield from plans(moved_on, planet + 1, made if choice is None else (*made, choice))

    yield from plans(state, 1, ())


def orbit(state: State, action: Action) -> Result:
    """The orbit phase as one step (V): every planet in turn, 1 to 8, one hex clockwise, pushing the ship in its way
    ahead of it; `shove` says where each ship that must make way goes, in the order the planets move."""
    if state.stage != "turn" or state.step != 0:
        raise IllegalAction("planets move in the orbit phase at the start of a turn")
    shoves = tuple(action.get("shove") or ())
    events: list[Event] = []
    for planet in PLANETS:
        choices = shove_choices(state, planet)
        choice = None
        if choices:
            blocker = occupied(state)[path_ahead(state, planet)[1]]
            if not shoves:
                raise IllegalAction(
                    f"{who(blocker.owner)}: say where {name(blocker)} makes way to when planet "
                    f"{planet} moves, one of {', '.join(choices)}"
                )
            choice, shoves = shoves[0], shoves[1:]
            if choice not in choices:
                raise IllegalAction(
                    f"{who(blocker.owner)}: say where {name(blocker)} makes way to when planet "
                    f"{planet} moves, one of {', '.join(choices)}"
                )
        state, more = _move_planet(state, planet, choice)
        events += more
    if shoves:
        raise IllegalAction(f"no ship needs to make room for {', '.join(shoves)} as the planets move")
    state, more = collect(state)
    return state, events + more


def _move_planet(state: State, planet: str, shove: str | None) -> Result:
    """One planet one hex along its orbit, with the ship in its way (and the ship beyond that one, moved to
    `shove`, or destroyed when it has nowhere to go)."""
    target, beyond = path_ahead(state, planet)
    taken = occupied(state)
    events = [
        Event(
            "orbited",
            f"Planet {planet} moves one hex clockwise to {place(target)}.",
            {"planet": planet, "from": state.planets[planet], "to": target},
        )
    ]
    choices = shove_choices(state, planet)
    if choices is not None:
        blocker = taken[beyond]
        if not choices:
            state = removed(state, blocker)
            events.append(
                Event(
                    "destroyed",
                    f"{name(blocker)} has no room to make way and is destroyed "
                    f"(take it and its cargo off {place(beyond)}).",
                    {"unit": blocker.uid},
                )
            )
        elif shove is not None:
            state = moved(state, blocker, shove)
            events.append(
                Event(
                    "shoved",
                    f"{name(blocker)} makes way from {place(beyond)} to {place(shove)}.",
                    {"unit": blocker.uid, "to": shove},
                )
            )
    pushed = taken.get(target)
    if pushed is not None:
        state = moved(state, pushed, beyond)
        events.append(
            Event(
                "pushed",
                f"Planet {planet} pushes {name(pushed)} ahead to {place(beyond)}.",
                {"unit": pushed.uid, "to": beyond},
            )
        )
    return replace(state, planets={**state.planets, planet: target}), events


def collect(state: State) -> Result:
    """The factory phase: planets held plus factories, added to each player's build points."""
    points = dict(state.points)
    events = []
    for player in (state.first, *[p for p in state.players if p != state.first]):
        gain = income(state, player)
        points[player] += gain
        planets = len(controlled(state, player))
        text = (
            f"{who(player)} earns {plural(gain, 'build point')} ({plural(planets, 'planet')} and "
            f"{plural(gain - planets, 'factory')}); {points[player]} in all."
        )
        events.append(Event("income", text, {"player": player, "gain": gain}))
    return replace(state, points=points, step=1, acted=()), events
