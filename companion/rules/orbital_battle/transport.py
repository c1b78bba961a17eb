"""Loading land units into transports beside a planet, and unloading them onto its map."""

from __future__ import annotations

from dataclasses import replace

from companion.boards.orbital_battle import planet_neighbours
from companion.rules.engine import Action, Event, IllegalAction
from companion.rules.orbital_battle.control import controller
from companion.rules.orbital_battle.geo import can_enter, enemy_land_beside, planet_map, planets_beside
from companion.rules.orbital_battle.state import (
    State,
    Unit,
    actor,
    cargo,
    moved,
    occupied,
    phase_name,
    planet_site,
    unit,
)
from companion.rules.orbital_battle.text import name, place, who
from companion.rules.orbital_battle.units import TRANSPORT_CAPACITY

Result = tuple[State, list[Event]]


def beside(state: State, ship: Unit) -> tuple[str, ...]:
    return planets_beside(state, ship.site)


def _enemy_in(state: State, player: str, planet: str, hexes: list[str]) -> bool:
    taken = occupied(state)
    return any((u := taken.get(planet_site(planet, h))) is not None and u.owner != player for h in hexes)


def boarding_problem(state: State, ship: Unit, u: Unit) -> str | None:
    if u.kind == "militia":
        return "militia cannot leave their home planet"
    if u.kind == "air_force" and controller(state, u.planet or "") != u.owner:
        return f"{name(u)} stays in its starport until {who(u.owner)} controls planet {u.planet}"
    if u.planet not in beside(state, ship):
        return f"{name(ship)} must be next to planet {u.planet} to load from it"
    pmap = planet_map(state, u.planet or "")
    ports = [s for s in pmap.starports if s == u.hex or s in planet_neighbours(u.hex)]
    if not any(not _enemy_in(state, u.owner, u.planet or "", [s]) for s in ports):
        return "land units board from in or next to a starport with no enemy units in it"
    return None


def landing_problem(state: State, ship: Unit, u: Unit, site: str) -> str | None:
    if not site.startswith("p") or ":" not in site:
        return f"{site} is not a planet hex (p<planet>:CCRR)"
    planet, hex_ = site[1:].split(":")
    if planet not in beside(state, ship):
        return f"{name(ship)} must be next to planet {planet} to unload onto it"
    pmap = planet_map(state, planet)
    if hex_ not in pmap.terrain or not can_enter(u.kind, pmap.terrain[hex_], pmap.feature(hex_)):
        return f"{name(u)} cannot stand on {place(site)}"
    if site in occupied(state):
        return f"{place(site)} is not empty"
    if u.kind == "marines" and hex_ in pmap.rim and not enemy_land_beside(state, replace(u, site=site), hex_):
        # Marines need no starport (IV): they may also set down on an empty hex on the planet's edge with no enemy
        # land unit next to it (VII); elsewhere they land as other units do, in or next to a clear starport.
        return None
    if u.kind == "air_force":
        ports = [hex_] if hex_ in pmap.starports else []
        rule = "an air force lands in a starport"
    else:
        ports = [s for s in pmap.starports if s == hex_ or s in planet_neighbours(hex_)]
        rule = "land units land in or next to a starport"
    clear = [s for s in ports if not _enemy_in(state, u.owner, planet, [s, *planet_neighbours(s)])]
    if not clear:
        if u.kind == "marines" and hex_ in pmap.rim:
            return "marines cannot set down next to enemy land units"
        if u.kind == "marines":
            return (
                f"{place(site)} is inland: marines set down on an empty hex on the planet's edge, or in or next "
                "to a starport with no enemy units in or next to it"
            )
        return f"{rule} with no enemy units in or next to it"
    return None


def _transport(state: State, action: Action) -> tuple[str, Unit, Unit]:
    player = actor(state)
    if player is None or state.retreats or phase_name(state) != "load":
        raise IllegalAction("transports load and unload in the loading/unloading phase")
    ship, u = unit(state, action.get("transport") or ""), unit(state, action.get("unit") or "")
    if ship is None or ship.owner != player or ship.kind != "transport":
        raise IllegalAction(f"name one of {who(player)}'s transports")
    if u is None or u.owner != player or u.domain != "land":
        raise IllegalAction(f"name one of {who(player)}'s land units")
    return player, ship, u


def load(state: State, action: Action) -> Result:
    _player, ship, u = _transport(state, action)
    if ship.uid in state.unloaded:
        raise IllegalAction(f"{name(ship)} unloaded this turn; a transport cannot load and unload in the same turn")
    if not u.site.startswith("p"):
        raise IllegalAction(f"{name(u)} is not on a planet")
    if len(cargo(state, ship)) >= TRANSPORT_CAPACITY:
        raise IllegalAction(f"{name(ship)} already carries {TRANSPORT_CAPACITY} land units")
    problem = boarding_problem(state, ship, u)
    if problem:
        raise IllegalAction(problem)
    state = moved(state, u, f"in:{ship.uid}")
    state = replace(state, loaded=tuple(dict.fromkeys((*state.loaded, ship.uid))))
    return state, [
        Event(
            "loaded",
            f"{name(u)} boards {name(ship)}: take it off {place(u.site)} and stack it under "
            f"the transport on {place(ship.site)}.",
            {"unit": u.uid, "transport": ship.uid},
        )
    ]


def unload(state: State, action: Action) -> Result:
    _player, ship, u = _transport(state, action)
    if ship.uid in state.loaded:
        raise IllegalAction(f"{name(ship)} loaded this turn; a transport cannot load and unload in the same turn")
    if u.site != f"in:{ship.uid}":
        raise IllegalAction(f"{name(u)} is not aboard {name(ship)}")
    site = action.get("at")
    problem = landing_problem(state, ship, u, site if isinstance(site, str) else "")
    if problem:
        raise IllegalAction(problem)
    state = moved(state, u, site)
    state = replace(state, unloaded=tuple(dict.fromkeys((*state.unloaded, ship.uid))))
    return state, [
        Event(
            "unloaded",
            f"{name(u)} lands from {name(ship)}: put it on {place(site)}.",
            {"unit": u.uid, "transport": ship.uid, "at": site},
        )
    ]
