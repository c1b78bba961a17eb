"""A board as data: sites with positions in mm, links between them, orbits, and the fiducials the camera reads.

The same value drives the rules (which sites connect), the sensor map (which switch is under which site), the
phone's SVG map and the printable overlay. Coordinates are millimetres on the printed board, origin at its
bottom-left corner, x to the right, y up (angles counter-clockwise from east, as the rulebooks describe orbits).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property


@dataclass(frozen=True)
class Site:
    """A place a piece can stand. `kind` is the game's word for it ("space", "spot", "hex"); tags add roles."""

    id: str
    x: float
    y: float
    kind: str = "space"
    label: str = ""
    tags: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.label or self.id


@dataclass(frozen=True)
class Link:
    """A connection from site `a` to site `b`. Directed links are one-way (a to b only)."""

    a: str
    b: str
    kind: str
    directed: bool = False


@dataclass(frozen=True)
class Fiducial:
    """A printed marker: its dictionary, id, centre in board mm and side length in mm."""

    id: int
    x: float
    y: float
    size: float
    dictionary: str = "DICT_4X4_50"


@dataclass(frozen=True)
class Board:
    name: str
    width: float
    height: float
    sites: tuple[Site, ...]
    links: tuple[Link, ...] = ()
    orbits: dict[str, tuple[str, ...]] = field(default_factory=dict)
    fiducials: tuple[Fiducial, ...] = ()
    notes: str = ""

    @cached_property
    def _by_id(self) -> dict[str, Site]:
        return {site.id: site for site in self.sites}

    @cached_property
    def _outgoing(self) -> dict[str, tuple[Link, ...]]:
        out: dict[str, list[Link]] = {site.id: [] for site in self.sites}
        for link in self.links:
            out[link.a].append(link)
            if not link.directed:
                out[link.b].append(Link(link.b, link.a, link.kind, False))
        return {k: tuple(v) for k, v in out.items()}

    @cached_property
    def _orbit_of(self) -> dict[str, tuple[str, int]]:
        return {site: (name, i) for name, cycle in self.orbits.items() for i, site in enumerate(cycle)}

    def site(self, site_id: str) -> Site:
        try:
            return self._by_id[site_id]
        except KeyError:
            raise KeyError(f"board {self.name!r} has no site {site_id!r}") from None

    def has_site(self, site_id: str) -> bool:
        return site_id in self._by_id

    def links_from(self, site_id: str, kind: str | None = None) -> Iterator[Link]:
        """The links one can follow out of a site (undirected links in both directions), optionally of one kind."""
        for link in self._outgoing[site_id]:
            if kind is None or link.kind == kind:
                yield link

    def orbit_of(self, site_id: str) -> tuple[str, int]:
        """The orbit a site lies on and its index along it."""
        return self._orbit_of[site_id]

    def bearing(self, a: str, b: str) -> float:
        """Degrees counter-clockwise from the board's +y to the way from site `a` to site `b` (an arrow on a piece at
        `a` pointing to `b`, as the camera measures a sticker's turn)."""
        one, other = self.site(a), self.site(b)
        return math.degrees(math.atan2(one.x - other.x, other.y - one.y)) % 360.0

    def with_tag(self, tag: str) -> tuple[Site, ...]:
        return tuple(site for site in self.sites if tag in site.tags)
