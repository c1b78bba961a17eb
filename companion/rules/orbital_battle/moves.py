"""The movement phases' actions: a ship flies on the solar map, a land unit marches on its planet's map."""

from __future__ import annotations

from dataclasses import replace

from companion.rules.engine import Action, Event, IllegalAction
from companion.rules.orbital_battle.control import controller
from companion.rules.orbital_battle.geo import planet_map
from companion.rules.orbital_battle.movement import flights, marches
from companion.rules.orbital_battle.state import State, Unit, actor, moved, occupied, phase_name, planet_site, unit
from companion.rules.orbital_battle.text import name, place, who
from companion.rules.orbital_battle.units import KINDS

Result = tuple[State, list[Event]]


def _mover(state: State, action: Action, phase: str, domain: str) -> Unit:
    player = actor(state)
    if player is None or state.retreats or phase_name(state) != phase:
        raise IllegalAction(
            f"{'ships' if domain == 'space' else 'land units'} move in their owner's "
            f"{'space' if domain == 'space' else 'land'} movement phase"
        )
    u = unit(state, action.get("unit") or "")
    if u is None or u.owner != player or u.domain != domain:
        raise IllegalAction(f"name one of {who(player)}'s {'spaceships' if domain == 'space' else 'land units'}")
    if u.uid in state.acted:
        raise IllegalAction(f"{name(u)} has already moved this phase")
    if u.site.startswith("in:"):
        raise IllegalAction(f"{name(u)} is aboard a transport; it moves when it is unloaded")
    return u


def _went(state: State, u: Unit, site: str) -> Result:
    state = replace(moved(state, u, site), acted=(*state.acted, u.uid))
    return state, [
        Event(
            "moved",
            f"{name(u)} moves from {place(u.site)} to {place(site)}.",
            {"unit": u.uid, "from": u.site, "to": site},
        )
    ]


def fly(state: State, action: Action) -> Result:
    u = _mover(state, action, "space_move", "space")
    site = action.get("to")
    if site not in flights(state, u):
        raise IllegalAction(
            f"{name(u)} cannot reach {site} this turn: speed {KINDS[u.kind].speed}, through friendly "
            f"ships only, never through enemy ships, planets or the star, ending on an empty hex"
        )
    return _went(state, u, site)


def air_bases(state: State, u: Unit) -> set[str]:
    """An air force moves only between the empty starports of a planet its owner controls."""
    planet = u.planet or ""
    if controller(state, planet) != u.owner:
        return set()
    taken = occupied(state)
    return {planet_site(planet, s) for s in planet_map(state, planet).starports} - set(taken)


def destinations(state: State, u: Unit) -> set[str]:
    if u.kind == "air_force":
        return air_bases(state, u)
    return {planet_site(u.planet or "", h) for h in marches(state, u)}


def march(state: State, action: Action) -> Result:
    u = _mover(state, action, "land_move", "land")
    site = action.get("to")
    if site not in destinations(state, u):
        if u.kind == "air_force":
            raise IllegalAction(
                f"{name(u)} stays in its starport until {who(u.owner)} controls the planet; then it "
                "may move to another empty starport there"
            )
        raise IllegalAction(
            f"{name(u)} cannot reach {site} this turn: speed {KINDS[u.kind].speed} with terrain "
            "costs, stopping in craters and next to enemy land units, ending on an empty hex"
        )
    return _went(state, u, site)
