"""Where units may go: ships on the solar map, land units on their planet's map, and retreats on either."""

from __future__ import annotations

import heapq
from functools import lru_cache

from companion.boards.orbital_battle import SUN, planet_distance, planet_neighbours, solar_neighbours
from companion.boards.orbital_battle_maps import PlanetMap
from companion.rules.orbital_battle.geo import (
    can_enter,
    distance,
    near,
    planet_map,
    solid,
)
from companion.rules.orbital_battle.state import Material, State, Unit, occupied, planet_site, standing
from companion.rules.orbital_battle.units import KINDS


def flights(state: State, ship: Unit) -> set[str]:
    """Empty solar hexes the ship can reach within its speed, passing friendly ships but never enemies, planets or
    the star (ships have no zones of control)."""
    return set(_flights(ship, state.units, frozenset(state.planets.values()), state.options.radius))


# A state's legal moves, the check of each and the referee's look at what each does all ask where the same unit may
# go among the same units: worked out once (a full board offers hundreds of moves, each a search of the map).
@lru_cache(maxsize=256)
def _flights(ship: Unit, units: tuple[Unit, ...], planets: frozenset[str], radius: int) -> frozenset[str]:
    taken = standing(units)
    neighbours = solar_neighbours(radius)
    seen = {ship.site}
    frontier = [ship.site]
    ends: set[str] = set()
    for _ in range(KINDS[ship.kind].speed):
        nxt = []
        for site in frontier:
            for n in neighbours[site]:
                if n in seen or n == SUN or n in planets:
                    continue
                there = taken.get(n)
                if there is not None and there.owner != ship.owner:
                    continue
                seen.add(n)
                nxt.append(n)
                if there is None:
                    ends.add(n)
        frontier = nxt
    return frozenset(ends)


def _land_step(pmap: PlanetMap, u: Unit, hex_: str, taken: dict[str, Unit]) -> bool:
    """May u pass through (not necessarily stop on) this hex of its planet (`pmap`)?"""
    if not can_enter(u.kind, pmap.terrain[hex_], pmap.feature(hex_)):
        return False
    there = taken.get(planet_site(pmap.planet, hex_))
    return there is None or there.owner == u.owner


def marches(state: State, u: Unit) -> set[str]:
    """Empty hexes (no unit, no structure) the land unit can reach this phase. Costs are in half move units:
    2 a hex, 4 into forest, 1 from road to road; a crater ends the move, and so does coming next to an enemy
    land unit."""
    return set(_marches(u, state.units, state.material))


@lru_cache(maxsize=256)
def _marches(u: Unit, units: tuple[Unit, ...], material: Material) -> frozenset[str]:
    """marches, from the units and the material the game was set up on (its planets' terrain)."""
    pmap = material.planets[u.planet or ""]
    taken = standing(units)
    budget = 2 * KINDS[u.kind].speed
    here_prefix = planet_site(pmap.planet, "")
    zoc = {
        n
        for x in taken.values()
        if x.site.startswith(here_prefix) and x.owner != u.owner and x.domain == "land"
        for n in planet_neighbours(x.hex)
    }
    best = {u.hex: 0}
    queue = [(0, u.hex)]
    ends: set[str] = set()
    while queue:
        spent, here = heapq.heappop(queue)
        if spent > best.get(here, budget + 1):
            continue
        if here != u.hex:
            if planet_site(pmap.planet, here) not in taken:
                ends.add(here)
            if pmap.terrain[here] == "crater" or here in zoc:
                continue
        for n in planet_neighbours(here):
            if not _land_step(pmap, u, n, taken):
                continue
            cost = 1 if pmap.is_road(here) and pmap.is_road(n) else (4 if pmap.terrain[n] == "forest" else 2)
            if here == u.hex and spent + cost > budget:
                cost = budget  # a ruling: a unit may always move one hex into terrain it can enter
            if spent + cost <= budget and spent + cost < best.get(n, budget + 1):
                best[n] = spent + cost
                heapq.heappush(queue, (spent + cost, n))
    return frozenset(ends)


def retreats(state: State, u: Unit, hexes: int, away: tuple[str, ...]) -> set[str]:
    """Where a unit forced back `hexes` hexes may end: exactly that far from where it stands, by steps it could
    take (through friends, never enemies), on an empty hex it may stand on, no closer to any of its attackers."""
    taken = occupied(state)
    if u.domain == "space":

        def step_ok(site: str) -> bool:
            there = taken.get(site)
            return not solid(state, site) and (there is None or there.owner == u.owner)

        def steps(site: str) -> tuple[str, ...]:
            return near(state, site)

        def far(a: str, b: str) -> int:
            return distance(state, a, b)

        start, wrap = u.site, (lambda s: s)
        foes = away
    else:
        pmap = planet_map(state, u.planet or "")

        def step_ok(site: str) -> bool:
            return _land_step(pmap, u, site, taken)

        steps, far = planet_neighbours, planet_distance
        start = u.hex
        wrap = lambda s: planet_site(u.planet or "", s)  # noqa: E731
        foes = tuple(a.split(":")[1] for a in away if a.startswith(f"p{u.planet}:"))
    frontier = {start}
    seen = {start}
    for _ in range(hexes):
        frontier = {n for s in frontier for n in steps(s) if n not in seen and step_ok(n)}
        seen |= frontier
    return {
        wrap(s)
        for s in frontier
        if far(start, s) == hexes and wrap(s) not in taken and all(far(s, f) >= far(start, f) for f in foes)
    }
