"""Planets on their orbits: advancing (carrying, docking, passing over, forks, nebulas), arrows, nebula chips."""

from __future__ import annotations

from dataclasses import replace

from companion.rules.engine import Action, Event, IllegalAction
from companion.rules.orbit.common import Result, active, feature, ready, spend
from companion.rules.orbit.space import next_choices, space
from companion.rules.orbit.state import NEBULA_CHIPS, Planet, State, with_turn
from companion.rules.orbit.text import POSITIONS, ship_name, where


class Undecided(IllegalAction):
    """An advance that reaches a fork its route does not decide."""

    def __init__(self, reason: str, onward: tuple[str, ...]) -> None:
        super().__init__(reason)
        self.onward = onward


def walk(
    state: State, colour: str, positions: int, route: tuple[str, ...]
) -> tuple[Planet, list[str], tuple[str, ...]]:
    """Where a planet ends after advancing `positions` positions, every site it passed on the way, and the two ways
    onward when it stops at a fork (its arrow is then for the player to point; else empty).

    At a fork the next element of `route` says which way its arrow points on; positions holding a nebula chip
    do not count: the planet moves straight on past them.
    """
    material = state.material
    planet = state.planets[colour]
    passed: list[str] = []
    choices = list(route)
    site, heading = planet.site, planet.heading
    counted = 0
    onward: tuple[str, ...] = ()
    for _ in range(4 * len(space(material).orbit) + 4):  # a planet whose whole orbit is nebulas stops where it was
        came_from, site = site, heading
        onward = next_choices(material, came_from, site)
        landing = site not in state.nebulas and counted + 1 == positions
        if len(onward) == 1:
            heading, onward = onward[0], ()
        elif landing:
            heading = ""  # the arrow at a fork where the planet stops: the player steers it next (see steer)
        else:
            if not choices:
                options = " or ".join(where(state, s) for s in onward)
                raise Undecided(
                    f"the {colour} planet reaches a fork at {where(state, site)}: say where its arrow points next "
                    f"({options}) in the route",
                    onward,
                )
            heading = choices.pop(0)
            if heading not in onward:
                raise IllegalAction(
                    f"from {where(state, site)} the {colour} orbit goes on only to "
                    + " or ".join(where(state, s) for s in onward)
                )
        if site in state.nebulas:
            passed.append(site)
            continue
        counted += 1
        if counted == positions:
            break
        passed.append(site)
    if choices:
        raise IllegalAction(f"the route names more forks than the {colour} planet meets")
    return Planet(site, heading), passed, onward


def routes(state: State, colour: str, positions: int) -> list[tuple[str, ...]]:
    """Every route of fork choices an advance can take (one empty route on a board without forks)."""
    found: list[tuple[str, ...]] = []
    pending: list[tuple[str, ...]] = [()]
    while pending:
        route = pending.pop()
        try:
            walk(state, colour, positions, route)
        except Undecided as fork:
            pending.extend((*route, s) for s in fork.onward)
        except IllegalAction:
            continue
        else:
            found.append(route)
    return found


def advance(state: State, action: Action) -> Result:
    _, turn = ready(state)
    colour = action.get("planet")
    if colour not in state.planets:
        raise IllegalAction(f"there is no {colour!r} planet (planets: {', '.join(state.planets)})")
    own = next((f for f in turn.features if f.startswith(f"advance:{colour}:")), None)
    if action.get("wild") or own is None:
        item = feature(turn, "wild", f"symbol for the {colour} planet (nor a wild planet symbol)")
        positions = 1
    else:
        item, positions = own, int(own.rsplit(":", 1)[1])
    route = action.get("route") or ()
    planet, passed, ways = walk(state, colour, positions, tuple(route))
    start = state.planets[colour].site
    carried = [c for c, ship in state.ships.items() if ship.site == start]
    docking = [c for c, ship in state.ships.items() if ship.site == planet.site]
    passed_over = [c for c, ship in state.ships.items() if ship.site in passed]
    ships = {c: replace(s, site=planet.site) if c in carried else s for c, s in state.ships.items()}
    state = replace(state, planets={**state.planets, colour: planet}, ships=ships)
    state = with_turn(state, features=spend(turn, item), steer=colour if ways else None, ways=ways)
    text = f"Advance {colour} {POSITIONS[positions]}: from {where(state, start)} to {where(state, planet.site)}"
    if any(s in state.nebulas for s in passed):
        text += ", skipping the artificial nebula"
    for group, one, many in (
        (carried, "rides along", "ride along"),
        (docking, "docks on it", "dock on it"),
        (passed_over, "is passed over and stays", "are passed over and stay"),
    ):
        if group:
            text += "; " + " and ".join(ship_name(state, c) for c in group) + " " + (one if len(group) == 1 else many)
    if planet.heading:
        text += f"; its arrow points to {where(state, planet.heading)}."
    else:
        text += "; it stands at a fork: say where its arrow points next."
    data = {"planet": colour, "from": start, "to": planet.site, "positions": positions, "heading": planet.heading}
    return state, [Event("advanced", text, data)]


def reverse(state: State, action: Action) -> Result:
    _, turn = ready(state)
    item = feature(turn, "reverse", "reverse-an-arrow feature")
    colour = action.get("planet")
    if colour not in state.planets:
        raise IllegalAction(f"there is no {colour!r} planet (planets: {', '.join(state.planets)})")
    planet = state.planets[colour]
    heading = action.get("heading")
    ways = space(state.material).orbit[planet.site]
    if heading not in ways:
        raise IllegalAction(
            f"the {colour} arrow can point only along its orbit: to " + " or ".join(where(state, s) for s in ways)
        )
    if heading == planet.heading:
        raise IllegalAction(f"the {colour} arrow already points to {where(state, heading)}")
    state = replace(state, planets={**state.planets, colour: replace(planet, heading=heading)})
    state = with_turn(state, features=spend(turn, item))
    text = f"Turn the {colour} planet's arrow to point to {where(state, heading)}."
    return state, [Event("reversed", text, {"planet": colour, "heading": heading})]


def nebula(state: State, action: Action) -> Result:
    _, turn = ready(state)
    item = feature(turn, "nebula", "nebula symbol (or the Artificial Nebulas module is not in play)")
    site = action.get("site")
    sp = space(state.material)
    if site not in sp.colour_of:
        raise IllegalAction(f"a nebula chip goes on a planet symbol of an orbit; {site!r} is none")
    if len(state.nebulas) >= NEBULA_CHIPS:
        raise IllegalAction(f"all {NEBULA_CHIPS} nebula chips are on the board")
    if (
        site in state.nebulas
        or any(p.site == site for p in state.planets.values())
        or any(s.site == site for s in state.ships.values())
    ):
        raise IllegalAction(f"{where(state, site)} must be free of planets, spaceships and nebulas")
    state = replace(with_turn(state, features=spend(turn, item)), nebulas=(*state.nebulas, site))
    text = f"Place an artificial nebula on {where(state, site)} ({sp.colour_of[site]} orbit)."
    return state, [Event("nebula", text, {"site": site})]


def steer_ways(state: State) -> tuple[str, ...]:
    """Where the arrow of the planet waiting at a fork may point (a game saved before the ways were kept: any way
    along its orbit)."""
    assert state.turn is not None and state.turn.steer is not None
    return state.turn.ways or space(state.material).orbit[state.planets[state.turn.steer].site]


def steer(state: State, action: Action) -> Result:
    """Point the arrow of a planet that stopped at a fork: the active player decides its further course."""
    _, turn = active(state)
    colour = turn.steer
    if colour is None:
        raise IllegalAction("no planet waits at a fork for its arrow")
    planet = state.planets[colour]
    heading = action.get("heading")
    ways = steer_ways(state)
    if heading not in ways:
        raise IllegalAction(
            f"the {colour} planet goes on from its fork only to "
            + " or ".join(where(state, s) for s in ways)
            + ", never back the way it came"
        )
    state = replace(state, planets={**state.planets, colour: replace(planet, heading=heading)})
    state = with_turn(state, steer=None, ways=())
    text = f"The {colour} planet's arrow points to {where(state, heading)}."
    return state, [Event("steered", text, {"planet": colour, "heading": heading})]
