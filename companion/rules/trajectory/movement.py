"""Where a ship may fly in one move, and what the flight costs in fuel."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from companion.boards import Board
from companion.boards import trajectory as geometry


@cache
def board() -> Board:
    """The board the rules use (its topology does not depend on the printed size)."""
    return geometry.build()


def orbit_number(site: str) -> int:
    return geometry.parse_site(site)[0]


def advance(site: str, steps: int = 1) -> str:
    """The site `steps` spaces counter-clockwise along the same orbit."""
    orbit, space = geometry.parse_site(site)
    return geometry.site_id(orbit, space + steps)


def destinations(site: str) -> tuple[str, ...]:
    """Every site one move away: both neighbours on the orbit and the transfer paths leading out of `site`."""
    return tuple(link.b for link in board().links_from(site))


@dataclass(frozen=True)
class FlightCost:
    fuel: int
    why: str


def flight_cost(weight: int, origin: str, target: str, to_planet: bool, from_accelerator: bool) -> FlightCost:
    """The fuel a flight costs: 1 along an orbit; a share of the total weight to change orbits, rounded up.

    A flight always costs at least 1 fuel: a ship with an empty tank cannot fly (a ruling; see docs/rules).
    """
    if orbit_number(origin) == orbit_number(target):
        return FlightCost(1, "1 fuel to move along an orbit")
    if to_planet or from_accelerator:
        share, where = 4, "arriving at a planet" if to_planet else "leaving an accelerator ring"
        fuel = max(1, -(-weight // share))
        return FlightCost(fuel, f"{fuel} fuel to change orbits {where} (a quarter of its weight {weight}, rounded up)")
    fuel = max(1, -(-weight // 2))
    return FlightCost(fuel, f"{fuel} fuel to change orbits to an empty space (half of its weight {weight}, rounded up)")
