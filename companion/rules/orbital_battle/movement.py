"""Where units may go: ships on the solar map, land units on their planet's map, and retreats on either."""

from __future__ import annotations

import heapq

from companion.boards.orbital_battle import planet_distance, planet_neighbours
from companion.rules.orbital_battle.geo import (
    can_enter,
    distance,
    near,
    planet_map,
    solid,
)
from companion.rules.orbital_battle.state import State, Unit, occupied, planet_site
from companion.rules.orbital_battle.units import KINDS


def flights(state: State, ship: Unit) -> set[str]:
    """Empty solar hexes the ship can reach within its speed, passing friendly ships but never enemies, planets or
    the star (ships have no zones of control)."""
    taken = occupied(state)
    seen = {ship.site}
    frontier = [ship.site]
    ends: set[str] = set()
    for _ in range(KINDS[ship.kind].speed):
        nxt = []
        for site in frontier:
            for n in near(state, site):
                if n in seen or solid(state, n):
                    continue
                there = taken.get(n)
                if there is not None and there.owner != ship.owner:
                    continue
                seen.add(n)
                nxt.append(n)
                if there is None:
                    ends.add(n)
        frontier = nxt
    return ends


def _land_step(state: State, u: Unit, hex_: str, taken: dict[str, Unit]) -> bool:
    """May u pass through (not necessarily stop on) this hex of its planet?"""
    pmap = planet_map(state, u.planet or "")
    if not can_enter(u.kind, pmap.terrain[hex_], pmap.feature(hex_)):
        return False
    there = taken.get(planet_site(u.planet or "", hex_))
    return there is None or there.owner == u.owner


def marches(state: State, u: Unit) -> set[str]:
    """Empty hexes (no unit, no structure) the land unit can reach this phase. Costs are in half move units:
    2 a hex, 4 into forest, 1 from road to road; a crater ends the move, and so does coming next to an enemy
    land unit."""
    pmap = planet_map(state, u.planet or "")
    taken = occupied(state)
    budget = 2 * KINDS[u.kind].speed
    zoc = {n for x in taken.values() if x.planet == u.planet and x.owner != u.owner and x.domain == "land"
           for n in planet_neighbours(x.hex)}
    best = {u.hex: 0}
    queue = [(0, u.hex)]
    ends: set[str] = set()
    while queue:
        spent, here = heapq.heappop(queue)
        if spent > best.get(here, budget + 1):
            continue
        if here != u.hex:
            if planet_site(u.planet or "", here) not in taken:
                ends.add(here)
            if pmap.terrain[here] == "crater" or here in zoc:
                continue
        for n in planet_neighbours(here):
            if not _land_step(state, u, n, taken):
                continue
            cost = 1 if pmap.is_road(here) and pmap.is_road(n) else (4 if pmap.terrain[n] == "forest" else 2)
            if here == u.hex and spent + cost > budget:
                cost = budget  # a ruling: a unit may always move one hex into terrain it can enter
            if spent + cost <= budget and spent + cost < best.get(n, budget + 1):
                best[n] = spent + cost
                heapq.heappush(queue, (spent + cost, n))
    return ends


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
        def step_ok(site: str) -> bool:
            return _land_step(state, u, site, taken)

        steps, far = planet_neighbours, planet_distance
        start = u.hex
        wrap = (lambda s: planet_site(u.planet or "", s))  # noqa: E731
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
