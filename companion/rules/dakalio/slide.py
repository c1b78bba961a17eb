"""The slide: a ship runs along its line until the next spot holds a ship or an asteroid, or is the Load Zone.

Lines loop round the planet (a ship leaving through the Control Zone reappears on the opposite side), so a slide
with nothing on its loop to stop it would go round for ever: such a slide is no move. A slide may go through the
portals once: the ship stops on one portal, comes out of the other and slides on in a direction of its choosing.
An entering ship is not yet inside, so it may neither cross nor stop on an anti-gravity signal spot.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from companion.rules.dakalio.mat import Mat, Way
from companion.rules.dakalio.state import State, board_of

Obstacles = dict[str, str]
"""Spot -> what stands there and stops a slide: "ship", "asteroid" or "load" (the Load Zone)."""


@dataclass(frozen=True)
class Slide:
    way: Way
    path: tuple[str, ...]  # the spots the ship passes over, in order; the last is where it stops unless it loops
    stop: str | None  # where it stops; None when it cannot move at all or nothing stops it
    blocker: str | None  # the spot whose occupant stops it; None when it loops

    @property
    def loops(self) -> bool:
        return self.blocker is None


@dataclass(frozen=True)
class Route:
    """One way to reach `to`: a slide, or a slide onto a portal and a second slide out of the other portal."""

    to: str
    first: Slide
    portal: str | None = None
    second: Slide | None = None

    @property
    def spots(self) -> tuple[str, ...]:
        """Every spot the ship passes over or stops on, in order (through a portal: up to it, then beyond)."""
        if self.portal is None or self.second is None:
            return self.first.path
        return (*self.first.path[: self.first.path.index(self.portal) + 1], *self.second.path)


def obstacles(state: State, leaving: str | None = None) -> Obstacles:
    """What stops a slide now; `leaving` is the moving ship's own spot, empty once it sets off."""
    found: Obstacles = dict.fromkeys(board_of(state).load_zone, "load")
    found.update(dict.fromkeys(state.asteroids, "asteroid"))
    found.update({spot: "ship" for spot in state.ships if spot != leaving})
    return found


def slide(board: Mat, blocked: Obstacles, way: Way) -> Slide:
    loop = board.loops[way.loop]
    path: list[str] = []
    index = way.index
    for _ in range(len(loop)):
        index = (index + way.step) % len(loop)
        spot = loop[index]
        if spot in blocked:
            return Slide(way, tuple(path), path[-1] if path else None, spot)
        path.append(spot)
    return Slide(way, tuple(path), None, None)


def routes(
    board: Mat, blocked: Obstacles, start: str, ways: Iterable[Way], portals: tuple[str, ...]
) -> Iterator[Route]:
    """Every way the ship on `start` can move along `ways` (portals included), ending anywhere but `start`."""
    for way in ways:
        first = slide(board, blocked, way)
        if first.stop is not None and first.stop != start:
            yield Route(first.stop, first)
        if len(portals) != 2:
            continue
        for spot in first.path:
            if spot == start or spot not in portals:
                continue
            exit_ = portals[1] if spot == portals[0] else portals[0]
            if exit_ in blocked:  # no clear exit: a ship stands on the other portal
                continue
            for out in board.ways[exit_]:
                second = slide(board, blocked, out)
                if second.stop is not None and second.stop != start:
                    yield Route(second.stop, first, spot, second)


def ship_routes(state: State, start: str) -> Iterator[Route]:
    board = board_of(state)
    return routes(board, obstacles(state, start), start, board.ways[start], state.portals)


def entry_routes(state: State, at: str, over_signals: bool = False) -> Iterator[Route]:
    """Where a ship entering at `at` can go; `over_signals` also gives the routes the signals forbid (to explain)."""
    board = board_of(state)
    found = routes(board, obstacles(state), at, board.entry_ways(at), state.portals)
    return found if over_signals else (r for r in found if not signal_on(board, r))


def signal_on(board: Mat, route: Route) -> str | None:
    """The first anti-gravity signal spot the route crosses or stops on, if any."""
    return next((spot for spot in route.spots if spot in board.signals), None)


def can_move(state: State, spot: str) -> bool:
    return next(ship_routes(state, spot), None) is not None


def destinations(found: Iterable[Route]) -> dict[str, Route]:
    """Each spot reachable, with the first route there (a plain slide before one through the portals)."""
    out: dict[str, Route] = {}
    for route in found:
        if route.to not in out or (out[route.to].portal and not route.portal):
            out[route.to] = route
    return out
