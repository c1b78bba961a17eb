"""What the sensors say about the board at one moment, site by site, in terms the referee can compare.

The reed grid knows whether a site is occupied; the camera knows which pieces stand there (bottom to top as far as
it can see). Either may be silent for a site: no switch under it, or the camera blind there (a hand, a glare).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass(frozen=True)
class SiteReading:
    occupied: bool | None = None  # from the reed grid; None: no switch here, or the grid is not connected
    pieces: tuple[str, ...] | None = None  # from the camera, bottom to top; None: the camera cannot tell
    confidence: float = 1.0  # the camera's confidence in `pieces`
    partial: bool = False  # `pieces` may leave out pieces hidden under those seen

    def agrees_with(self, expected: tuple[str, ...]) -> bool:
        """True when nothing known about this site contradicts the pieces expected on it.

        A partial reading (the lowest piece seen is not a base, so a piece could hide under it) only says that what
        was seen is there; the top of a stack is always in view, so it sees something wherever something stands."""
        if self.occupied is not None and self.occupied != bool(expected):
            return False
        if self.pieces is None:
            return True
        if not self.partial:
            return sorted(self.pieces) == sorted(expected)
        return bool(self.pieces) == bool(expected) and not Counter(self.pieces) - Counter(expected)


@dataclass(frozen=True)
class Observation:
    """The settled board: a reading for each site a sensor covers (sites left out are unknown)."""

    sites: dict[str, SiteReading] = field(default_factory=dict)
    time: float = 0.0

    def reading(self, site: str) -> SiteReading:
        return self.sites.get(site, SiteReading())

    def known_sites(self) -> set[str]:
        return {s for s, r in self.sites.items() if r.occupied is not None or r.pieces is not None}
