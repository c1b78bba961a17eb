"""Spending build points: starting forces round the home world, the build phase's purchases, scrapping."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from companion.boards.orbital_battle import planet_neighbours
from companion.rules.engine import Action, Event, IllegalAction
from companion.rules.orbital_battle.control import controlled
from companion.rules.orbital_battle.geo import can_enter, near, planet_map, solid
from companion.rules.orbital_battle.state import (
    State,
    Unit,
    actor,
    next_number,
    occupied,
    on_planet,
    phase_name,
    planet_site,
    removed,
)
from companion.rules.orbital_battle.text import KIND_NAMES, name, place, plural, who
from companion.rules.orbital_battle.units import KINDS

# The terrains a new building may stand on.
BUILDABLE = frozenset({"grass", "desert", "forest", "road"})

Result = tuple[State, list[Event]]


def buyer(state: State) -> str:
    player = actor(state)
    if player is None or state.retreats or phase_name(state) not in ("deploy", "build"):
        raise IllegalAction("units and structures are bought in the build phase (and before the first turn)")
    return player


def _planets(state: State, player: str) -> tuple[str, ...]:
    """Where the player may build: the controlled planets, or the home world while setting up."""
    if state.stage == "deploy":
        return ((state.homes or {})[player],)
    return controlled(state, player)


def structure_problem(state: State, kind: str, planet: str, hex_: str) -> str | None:
    pmap = planet_map(state, planet)
    terrain, feature = pmap.terrain[hex_], pmap.feature(hex_)
    if feature:
        words = {"starport": "a starport", "armory": "an armory", "resource": "a resource cluster"}
        return f"no structure can be built on {words[feature]}"
    if terrain not in BUILDABLE:
        return f"structures go on grass, desert, forest or road, not {terrain}"
    around = [pmap.feature(n) for n in planet_neighbours(hex_)]
    if kind == "factory" and "resource" not in around:
        return "a factory must be built next to a resource cluster"
    if kind == "planet_defense":
        if "starport" not in around:
            return "a planet defense must be built next to a starport"
        if any(u.kind == "planet_defense" for u in on_planet(state, planet)):
            return f"planet {planet} already has its planet defense"
    return None


def placements(state: State, player: str, kind: str) -> Iterator[str]:
    """Every site where a new unit of this kind may be put now."""
    taken = occupied(state)
    for planet in _planets(state, player):
        if KINDS[kind].domain == "space":
            sites = near(state, state.planets[planet])
        else:
            sites = tuple(planet_site(planet, hex_) for hex_ in planet_map(state, planet).hexes)
        yield from (site for site in sites if _fits(state, kind, planet, site, taken))


def placeable(state: State, player: str, kind: str, site: str) -> bool:
    """May a new unit of this kind be put on this site now? (One site of `placements`, without the others.)"""
    taken = occupied(state)
    for planet in _planets(state, player):
        if KINDS[kind].domain == "space":
            if site in near(state, state.planets[planet]) and _fits(state, kind, planet, site, taken):
                return True
        elif site.startswith(planet_site(planet, "")):
            terrain = planet_map(state, planet).terrain.get(site[len(planet_site(planet, "")) :], "edge")
            return terrain != "edge" and _fits(state, kind, planet, site, taken)
    return False


def _fits(state: State, kind: str, planet: str, site: str, taken: dict[str, Unit]) -> bool:
    """A site next to (a ship) or on (the rest) a planet the buyer may build at: may the new unit go there?"""
    if site in taken:
        return False
    domain = KINDS[kind].domain
    if domain == "space":
        return not solid(state, site)
    pmap = planet_map(state, planet)
    hex_ = site.split(":")[1]
    if domain == "structure":
        return structure_problem(state, kind, planet, hex_) is None
    if kind == "air_force":
        return hex_ in pmap.starports
    return can_enter(kind, pmap.terrain[hex_], pmap.feature(hex_)) and (
        state.stage == "deploy" or hex_ == pmap.armory or pmap.armory in planet_neighbours(hex_)
    )


def _where_rule(state: State, kind: str) -> str:
    domain = KINDS[kind].domain
    if domain == "space":
        return "new spaceships go on an empty hex next to a planet you control"
    if kind == "air_force":
        return "a new air force lands in an empty starport of a planet you control"
    if domain == "structure":
        return "structures go on an empty hex of a planet you control"
    if state.stage == "deploy":
        return "starting land units go on an empty hex of your home world they can enter"
    return "new land units go on or next to the armory of a planet you control, on an empty hex they can enter"


def buy(state: State, action: Action) -> Result:
    player = buyer(state)
    kind, site = action.get("kind"), action.get("at")
    if kind not in KINDS:
        raise IllegalAction(f"there is no unit called {kind!r} (units: {', '.join(KINDS)})")
    cost = KINDS[kind].cost
    if state.points[player] < cost:
        raise IllegalAction(
            f"{who(player)} needs {plural(cost, 'build point')} for {KIND_NAMES[kind]}; "
            f"{who(player)} has {state.points[player]}"
        )
    number = next_number(state, player, kind)
    if number is None:
        raise IllegalAction(f"all {KINDS[kind].qty} of {who(player)}'s {KIND_NAMES[kind]} counters are in play")
    if not isinstance(site, str) or not placeable(state, player, kind, site):
        why = _where_rule(state, kind)
        if isinstance(site, str) and site.startswith("p") and KINDS[kind].domain == "structure" and ":" in site:
            planet, hex_ = site[1:].split(":")
            try:
                problem = structure_problem(state, kind, planet, hex_)
            except KeyError:
                problem = None
            why = problem or why
        raise IllegalAction(f"{KIND_NAMES[kind]} cannot be placed on {site}: {why}")
    new = Unit(kind, player, number, site)
    state = replace(state, units=(*state.units, new), points={**state.points, player: state.points[player] - cost})
    return state, [
        Event(
            "bought",
            f"{who(player)} buys {name(new)} for {plural(cost, 'build point')}: put it on "
            f"{place(site)} ({state.points[player]} left).",
            {"unit": new.uid, "at": site},
        )
    ]


def scrap(state: State, action: Action) -> Result:
    player = buyer(state)
    if state.stage != "turn":
        raise IllegalAction("structures are scrapped in the build phase")
    uid = action.get("unit")
    target = next((u for u in state.units if u.uid == uid), None)
    if target is None or target.owner != player or target.domain != "structure":
        raise IllegalAction(f"{who(player)} can only scrap structures of {who(player)}'s own")
    state = removed(state, target)
    state = replace(state, points={**state.points, player: state.points[player] + 1})
    return state, [
        Event(
            "scrapped",
            f"{who(player)} scraps {name(target)} for 1 build point: take it off {place(target.site)}.",
            {"unit": target.uid},
        )
    ]
