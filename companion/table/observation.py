"""What the sensors say about the board at one moment, site by site, in terms the referee can compare.

The reed grid knows whether a site is occupied; the camera knows which pieces stand there (bottom to top as far as
it can see). Either may be silent for a site: no switch under it, or the camera blind there (a hand, a glare).

The camera names the pieces in the box (the blue spaceship, `ship-blue`) and sees only the kinds its registry gives
a sticker or a calibrated colour; a game's layout may name a piece by the part it plays (ORBIT's second spaceship
in a dual game, `ship-blue-red`) and lists pieces the camera never looks for (ORBIT's station tiles). So the
camera's reading is compared with the expected pieces as the camera can show them (`Observation.shown`); the grid's
with every piece.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from companion.rules.engine import POINTS_TO, points_to, unpointed


def same_piece(name: str) -> str:
    """A layout name that is the physical piece's own name (every game's but where Game.physical_piece says)."""
    return name


def aligned(seen: tuple[str, ...], shown: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """Both lists of pieces with the way a piece points kept only where both sides say it (the camera did not read
    the arrow, or the game does not know it yet: the piece is compared as itself)."""
    if not any(POINTS_TO in p for p in (*seen, *shown)):  # most games point nothing: compare as they are
        return list(seen), list(shown)
    both = {unpointed(p) for p in seen if points_to(p)} & {unpointed(p) for p in shown if points_to(p)}

    def keep(pieces: tuple[str, ...]) -> list[str]:
        return [p if unpointed(p) in both else unpointed(p) for p in pieces]

    return keep(seen), keep(shown)


@dataclass(frozen=True)
class SiteReading:
    occupied: bool | None = None  # from the reed grid; None: no switch here, or the grid is not connected
    pieces: tuple[str, ...] | None = None  # from the camera, bottom to top; None: the camera cannot tell
    confidence: float = 1.0  # the camera's confidence in `pieces`
    partial: bool = False  # `pieces` may leave out pieces hidden under those seen
    # With `partial`: how many of the last pieces seen may be the stack's top (riders docked side by side at one
    # level); 0 when the top itself may be out of the frame (then what was seen is there, and nothing more is known).
    top: int = 1

    def agrees_with(self, expected: tuple[str, ...], shown: tuple[str, ...] | None = None) -> bool:
        """True when nothing known about this site contradicts the pieces expected on it; `shown` is what of them
        the camera can show (default: all of them, as named).

        A partial reading (the lowest piece seen is not a base, so a piece could hide under it) says that what was
        seen is there; the top of a stack is always in view, so it sees something wherever something stands, and the
        top it sees is the stack's top."""
        if self.occupied is not None and self.occupied != bool(expected):
            return False
        if self.pieces is None:
            return True
        seen, shown = aligned(self.pieces, expected if shown is None else shown)
        if not self.partial:
            return sorted(seen) == sorted(shown)
        # What is seen must be there, and the top seen must be the top expected: nothing hides a stack's top (a
        # ship held over another's stack is not the one that docked there). Of riders side by side, any may be it.
        if bool(seen) != bool(shown) or Counter(seen) - Counter(shown):
            return False
        return not seen or not self.top or shown[-1] in seen[-self.top :]


@dataclass(frozen=True)
class Observation:
    """The settled board: a reading for each site a sensor covers (sites left out are unknown)."""

    sites: dict[str, SiteReading] = field(default_factory=dict)
    time: float = 0.0
    camera_pieces: frozenset[str] | None = None  # the piece names the camera tells apart (None: every piece)
    singles: frozenset[str] = frozenset()  # pieces the box holds one of (as in the box): one seen is on no other site

    def shown(self, expected: tuple[str, ...], physical: Callable[[str], str] = same_piece) -> tuple[str, ...]:
        """The expected pieces as the camera can show them: each named as the physical piece `physical` says it is,
        without those the camera does not tell apart."""
        names = (physical(piece) for piece in expected)
        return tuple(p for p in names if self.camera_pieces is None or unpointed(p) in self.camera_pieces)

    def agrees(self, site: str, expected: tuple[str, ...], physical: Callable[[str], str] = same_piece) -> bool:
        """True when the site's reading does not contradict `expected` (layout names, bottom to top)."""
        return self.reading(site).agrees_with(expected, self.shown(expected, physical))

    def seen_elsewhere(self, piece: str, site: str, physical: Callable[[str], str] = same_piece) -> bool:
        """Does the camera see `piece` (a layout name) on another site than `site`, while the box holds only one of
        it, so that it cannot also hide in a stack on `site`?"""
        box = unpointed(physical(piece))
        return box in self.singles and any(
            other != site and reading.pieces and box in map(unpointed, reading.pieces)
            for other, reading in self.sites.items()
        )

    def reading(self, site: str) -> SiteReading:
        return self.sites.get(site, SiteReading())

    def known_sites(self) -> set[str]:
        return {s for s, r in self.sites.items() if r.occupied is not None or r.pieces is not None}
