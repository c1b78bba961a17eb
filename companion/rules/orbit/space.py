"""The board as the rules see it: flight lines, orbits with their forks, portals, station sites, straight lines.

Everything is computed once per board (cached by the material the game was set up on) from the board data, so a
user's own board file works the same as ours; the file is read at setup only (`read_board`).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from functools import lru_cache

from companion.boards import Board, BoardFileError, load_board
from companion.boards import orbit as sides
from companion.rules.engine import Material, SetupError

ORBIT_LINKS = ("orbit", "orbit-fork", "orbit-outside")


@dataclass(frozen=True)
class Space:
    board: Board
    neighbours: dict[str, tuple[str, ...]]  # flight steps along the grid lines
    orbit: dict[str, tuple[str, ...]]  # a planet symbol's neighbouring positions on its orbit
    colour_of: dict[str, str]  # planet symbol site -> the planet whose orbit it is on
    positions: dict[str, tuple[str, ...]]  # planet -> its planet symbol sites
    portals: tuple[str, ...]
    station_sites: tuple[str, ...]
    ahead: dict[tuple[str, str], str]  # (a, b) -> the site after b on the straight line from a through b
    bearing: dict[str, float]  # planet symbol site -> its angle round the board's centre, in degrees


def read_board(spec: str) -> Board:
    """The board the `board` option names, as setup reads it: "front", "back" or a board file; SetupError naming
    what is wrong with a file that cannot be read or is no ORBIT board."""
    if spec in ("front", "back"):
        return sides.build(spec)
    try:
        board = load_board(spec)
    except (BoardFileError, OSError) as error:
        raise SetupError(f"options.board: {error}") from None
    _topology(board, spec)  # a board the rules cannot read is refused now, never in play
    return board


def space(material: Material) -> Space:
    """The topology of the board a game was set up on (checked then), worked out once per material."""
    return material.derived("space", lambda m: _topology(m.board_of(), "the board"))


def _topology(board: Board, spec: str) -> Space:
    neighbours: dict[str, list[str]] = {s.id: [] for s in board.sites}
    orbit: dict[str, list[str]] = {}
    colour_of: dict[str, str] = {}
    for site in board.sites:
        colours = [t.removeprefix("planet-") for t in site.tags if t.startswith("planet-")]
        if len(colours) > 1:
            raise SetupError(f"options.board ({spec}): site {site.id} is a planet symbol of {' and '.join(colours)}")
        if colours:
            colour_of[site.id] = colours[0]
            orbit[site.id] = []
    for link in board.links:
        if link.kind == "line":
            neighbours[link.a].append(link.b)
            neighbours[link.b].append(link.a)
        elif link.kind in ORBIT_LINKS:
            if colour_of.get(link.a) is None or colour_of.get(link.a) != colour_of.get(link.b):
                raise SetupError(f"options.board ({spec}): orbit link {link.a}-{link.b} joins no one planet's symbols")
            orbit[link.a].append(link.b)
            orbit[link.b].append(link.a)
    for site, near in orbit.items():
        if not near:
            raise SetupError(f"options.board ({spec}): planet symbol {site} is on no orbit line")
        if len(near) < 2:  # a planet goes round and round: its orbit must close
            raise SetupError(f"options.board ({spec}): the orbit through {site} does not close (it ends there)")
    positions: dict[str, list[str]] = {}
    for site, colour in colour_of.items():
        positions.setdefault(colour, []).append(site)
    xs, ys = [s.x for s in board.sites], [s.y for s in board.sites]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    bearing = {sid: math.degrees(math.atan2(board.site(sid).y - cy, board.site(sid).x - cx)) for sid in colour_of}
    ahead = {}
    for a, near in neighbours.items():
        pa = board.site(a)
        for b in near:
            pb = board.site(b)
            dx, dy = pb.x - pa.x, pb.y - pa.y
            for c in neighbours[b]:
                pc = board.site(c)
                ex, ey = pc.x - pb.x, pc.y - pb.y
                if abs(dx * ey - dy * ex) < 0.01 * math.hypot(dx, dy) * math.hypot(ex, ey) and dx * ex + dy * ey > 0:
                    ahead[(a, b)] = c
    return Space(
        board,
        {k: tuple(v) for k, v in neighbours.items()},
        {k: tuple(v) for k, v in orbit.items()},
        colour_of,
        {k: tuple(v) for k, v in positions.items()},
        tuple(s.id for s in board.with_tag("portal")),
        tuple(s.id for s in board.with_tag("station")),
        ahead,
        bearing,
    )


@lru_cache(maxsize=2048)
def distances(material: Material, start: str, blocked: frozenset[str]) -> dict[str, int]:
    """The fewest flight steps from `start` to every site, never onto or over a blocked site (a nebula)."""
    near = space(material).neighbours
    found = {start: 0}
    queue = deque([start])
    while queue:
        site = queue.popleft()
        for other in near[site]:
            if other not in found and other not in blocked:
                found[other] = found[site] + 1
                queue.append(other)
    return found


@lru_cache(maxsize=2048)
def straight_lines(material: Material, start: str, blocked: frozenset[str]) -> tuple[str, ...]:
    """Every site a ship reaches in a straight line from `start`, stopping short of a blocked site."""
    sp = space(material)
    out = []
    for first in sp.neighbours[start]:
        prev, site = start, first
        while site is not None and site not in blocked:
            out.append(site)
            prev, site = site, sp.ahead.get((prev, site))
    return tuple(out)


def next_choices(material: Material, came_from: str, site: str) -> tuple[str, ...]:
    """Where a planet arriving at `site` from `came_from` may head next: on along its orbit, round the centre the
    way it was going. Where a branch leaves the orbit there are two ways onward (a fork); where it rejoins, one: the
    way back along the other path would turn the planet round (a hairpin)."""
    sp = space(material)
    onward = tuple(s for s in sp.orbit[site] if s != came_from)
    if len(onward) < 2:
        return onward or (came_from,)
    going = _turning(sp, came_from, site)
    same = tuple(s for s in onward if _turning(sp, site, s) == going)
    return same if going and same else onward


def _turning(sp: Space, a: str, b: str) -> int:
    """+1 for a step counter-clockwise round the centre, -1 clockwise, 0 across it (a half circle off the board)."""
    turn = (sp.bearing[b] - sp.bearing[a] + 180) % 360 - 180
    return 0 if abs(turn) < 1e-6 or abs(abs(turn) - 180) < 1e-6 else (1 if turn > 0 else -1)
