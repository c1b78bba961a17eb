"""How infestors enter the board and crawl towards their planets."""

from __future__ import annotations

from companion.boards import trajectory as geometry
from companion.rules.trajectory.movement import board
from companion.rules.trajectory.state import PLANET_ORBIT, Infestor


def seat_angles(players: int, seats: tuple[float, ...] | None) -> tuple[float, ...]:
    """Each player's seat in degrees; by default evenly spread from the south edge, counter-clockwise."""
    if seats is not None:
        return tuple(s % 360 for s in seats)
    return tuple((270 + 360 * i / players) % 360 for i in range(players))


def entry_point(seat: float) -> str:
    """The infestation point nearest a seat; on a tie the one further counter-clockwise."""

    def gap(site: str) -> tuple[float, float]:
        angle = geometry.space_angle(4, geometry.parse_site(site)[1])
        diff = abs((angle - seat + 180) % 360 - 180)
        return diff, -((angle - seat) % 360 <= 180)

    return min((site.id for site in board().with_tag("infestation")), key=gap)


def _orbit_distance(orbit: int, a: int, b: int) -> tuple[int, int]:
    size = geometry.ORBIT_SIZES[orbit - 1]
    return (b - a) % size, (a - b) % size


def step(infestor: Infestor, planet_site: str) -> str:
    """The site an infestor reaches in one space of movement towards the planet at `planet_site`.

    It first changes orbit along the transfer paths until it is on its planet's orbit, then goes round the shorter
    way, counter-clockwise when both ways are equally long.
    """
    orbit, space = geometry.parse_site(infestor.site)
    target_orbit, target_space = geometry.parse_site(planet_site)
    if orbit == target_orbit:
        ahead, behind = _orbit_distance(orbit, space, target_space)
        if ahead == 0:
            return infestor.site
        return geometry.site_id(orbit, space + 1 if ahead <= behind else space - 1)
    kind = "transfer-in" if orbit > target_orbit else "transfer-out"
    options = [link.b for link in board().links_from(infestor.site, kind)]
    if orbit + 1 == target_orbit:
        # Two paths lead out: take the one that leaves the shorter way round to the planet.
        return min(options, key=lambda s: min(_orbit_distance(target_orbit, geometry.parse_site(s)[1], target_space)))
    return options[0]


def target_orbit(infestor: Infestor) -> int:
    return PLANET_ORBIT[infestor.target]
