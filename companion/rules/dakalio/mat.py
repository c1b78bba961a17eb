"""The Orbix mat as the rules see it: loops of spots round the planet, zones, bases and entry lines.

Read from any Board (the default one generated in companion.boards.dakalio, or a user's file): sites of kind
"spot" are where ships stand; kinds "base" (tagged "red" or "blue") and "load" are the Load Zone; tags "control",
"signal", "station" and "port" give spots their roles. Each orbit is a straight line; orbits named `<loop>/<n>`
continue each other, in the order of n, into one loop round the planet (the last spot wraps to the first).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from companion.boards import Board, BoardFileError, load_board
from companion.boards import dakalio as default_mat
from companion.jsonfile import file_stamp
from companion.rules.engine import Material, SetupError

LOAD_KINDS = ("base", "load")


@dataclass(frozen=True)
class Way:
    """A direction a ship can take from a spot: along loop `loop`, from position `index`, forwards (+1) or back."""

    loop: int
    index: int
    step: int


@dataclass(frozen=True)
class Mat:
    name: str
    loops: tuple[tuple[str, ...], ...]
    spots: frozenset[str]
    load_zone: frozenset[str]
    control: frozenset[str]
    signals: frozenset[str]
    stations: frozenset[str]
    ports: frozenset[str]
    red_bases: tuple[str, ...]
    blue_base: str
    served_by: dict[str, str]  # Station or Port -> the base that serves it
    entries: dict[str, tuple[str, ...]]  # Control Zone spot -> the first spot inside of each entry line
    ways: dict[str, tuple[Way, ...]]

    def next_spot(self, way: Way) -> str:
        loop = self.loops[way.loop]
        return loop[(way.index + way.step) % len(loop)]

    def neighbours(self, spot: str) -> frozenset[str]:
        """The spots one step away along any line, the wrap-around included."""
        return frozenset(self.next_spot(w) for w in self.ways[spot])

    def entry_ways(self, spot: str) -> tuple[Way, ...]:
        targets = self.entries.get(spot, ())
        return tuple(w for w in self.ways[spot] if self.next_spot(w) in targets)

    def is_base(self, site: str) -> bool:
        return site == self.blue_base or site in self.red_bases


def from_board(board: Board, source: str = "mat") -> Mat:
    """The rules' view of a board; SetupError naming what is missing when the board is no Orbix mat."""
    kinds = {site.id: site.kind for site in board.sites}
    tagged = {
        tag: frozenset(s.id for s in board.sites if tag in s.tags)
        for tag in ("control", "signal", "station", "port", "red", "blue")
    }
    load_zone = frozenset(s for s, kind in kinds.items() if kind in LOAD_KINDS)
    spots = frozenset(s for s, kind in kinds.items() if kind == "spot")
    red = tuple(sorted(s for s in tagged["red"] if kinds[s] == "base"))
    blue = sorted(s for s in tagged["blue"] if kinds[s] == "base")
    if len(red) != 3 or len(blue) != 1:
        raise SetupError(
            f"{source}: an Orbix mat needs 3 red bases and 1 blue base (sites of kind 'base' tagged "
            f"'red' or 'blue'); found {len(red)} and {len(blue)}"
        )
    if not tagged["control"] <= spots or not tagged["control"]:
        raise SetupError(f"{source}: the Control Zone (tag 'control') must be a non-empty set of spots")
    grouped: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for name, line in board.orbits.items():
        loop, _, part = name.partition("/")
        grouped.setdefault(loop, []).append((part, line))
    loops = tuple(tuple(s for _, line in sorted(parts) for s in line) for _, parts in sorted(grouped.items()))
    ways: dict[str, list[Way]] = {s: [] for s in spots | load_zone}
    if not set().union(*board.orbits.values()) <= spots | load_zone:
        raise SetupError(f"{source}: every spot on a line must be of kind 'spot', 'base' or 'load'")
    for n, loop in enumerate(loops):
        if len(loop) < 2:
            raise SetupError(f"{source}: line {n} has fewer than two spots")
        for i, site in enumerate(loop):
            ways[site] += [Way(n, i, 1), Way(n, i, -1)]
    for parts in grouped.values():
        # A line leaving the mat comes back in on the line opposite it: only a line through the centre (the blue
        # base) is a loop on its own; any other is one part of a loop with the line opposite.
        line = parts[0][1]
        if len(parts) == 1 and blue[0] not in line:
            raise SetupError(
                f"{source}: the line from {line[0]} to {line[-1]} leaves the mat and comes back on no "
                f"line: join it to the line opposite it (only a line through the centre, {blue[0]}, "
                "is a loop on its own)"
            )
    served_by: dict[str, str] = {}
    entries: dict[str, list[str]] = {}
    for link in board.links:
        if link.kind == "serves":
            served_by[link.b] = link.a
        elif link.kind == "entry":
            if link.a not in tagged["control"] or link.a in tagged["signal"]:
                raise SetupError(
                    f"{source}: entry line {link.a}->{link.b} must start at a Control Zone spot "
                    "that is not on an anti-gravity signal"
                )
            entries.setdefault(link.a, []).append(link.b)
    for spot in tagged["station"] | tagged["port"]:
        base = served_by.get(spot)
        wanted = red if spot in tagged["station"] else tuple(blue)
        if base not in wanted:
            raise SetupError(
                f"{source}: {spot} needs a 'serves' link from its {'red' if wanted == red else 'blue'} base"
            )
    return Mat(
        board.name,
        loops,
        spots,
        load_zone,
        tagged["control"],
        tagged["signal"],
        tagged["station"],
        tagged["port"],
        red,
        blue[0],
        served_by,
        {k: tuple(v) for k, v in entries.items()},
        {k: tuple(v) for k, v in ways.items()},
    )


def read_board(path: str | None) -> Board:
    """The mat's board as setup reads it: the default mat, or the table's board file; SetupError naming the file
    for one that cannot be read or is no mat."""
    if path is None:
        board, source = default_mat.build(), "the default mat"
    else:
        try:
            board = load_board(path)
        except (BoardFileError, OSError) as error:
            raise SetupError(f"options.mat: {error}") from None
        source = f"options.mat: {path}"
    from_board(board, source)  # a board that is no mat is refused now, never in play
    return board


def mat(path: str | None = None) -> Mat:
    """The default mat, or the mat in a board file, read now (again once the file is replaced); a state's mat is
    `mat_of` its material."""
    return _mat(path, file_stamp(path))


@cache
def _mat(path: str | None, stamp: int) -> Mat:
    return from_board(read_board(path), "the mat")


def mat_of(material: Material) -> Mat:
    """The mat of the board a game was set up on (checked then), worked out once per material."""
    return material.derived("mat", lambda m: from_board(m.board_of(), "the mat"))
