"""Periorbis's sensed board: the orbit track's twelve turn spaces and every asteroid's base slots.

The rest of the game (HQ boards, tracks, trading ship cards) is kept on the phones. Sites are `turn-<n>` for the
turn marker and `<asteroid>-<slot>` for a base slot, a player's base and the employee discs standing on it. The board
is generated from the asteroids' slots: the default asteroids.json beside this module (which the rules read too),
or a table's own, with `build(load("/path/to/folder").asteroids)` and `companion.boards.files.save_board`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from companion.boards.model import Board, Fiducial, Link, Site

ASTEROIDS_FILE = Path(__file__).with_name("periorbis_asteroids.json")

WIDTH_MM = 600.0
HEIGHT_MM = 460.0
CORNER_MARKER_MM = 40.0
TURNS = 12
SLOT_PITCH_MM = 30.0
ROW_PITCH_MM = 26.0


class AsteroidSlots(Protocol):
    """What the board needs of an asteroid: its name, its title and the cost of each base slot."""

    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def slots(self) -> Sequence[int]: ...


@dataclass(frozen=True)
class _Asteroid:
    name: str
    title: str
    slots: tuple[int, ...]


def default_asteroids() -> tuple[_Asteroid, ...]:
    """The shipped asteroids (the rules check this file in full when they load it)."""
    raw = json.loads(ASTEROIDS_FILE.read_text(encoding="utf-8"))["asteroids"]
    return tuple(_Asteroid(a["name"], a["title"], tuple(a["slots"])) for a in raw)


def build(asteroids: Sequence[AsteroidSlots] | None = None) -> Board:
    """The board for the given asteroids (the shipped ones unless told)."""
    asteroids = default_asteroids() if asteroids is None else asteroids
    sites: list[Site] = []
    links: list[Link] = []
    spacing = (WIDTH_MM - 160) / (TURNS - 1)
    for turn in range(1, TURNS + 1):
        sites.append(Site(f"turn-{turn}", round(80 + (turn - 1) * spacing, 2), 410.0, "turn", f"turn {turn}"))
        if turn > 1:
            links.append(Link(f"turn-{turn - 1}", f"turn-{turn}", "track", directed=True))
    columns = 3
    rows = -(-len(asteroids) // columns)
    for index, asteroid in enumerate(asteroids):
        cx = WIDTH_MM / (columns * 2) * (2 * (index % columns) + 1)
        cy = 350.0 - (index // columns + 0.5) * (300.0 / rows)
        per_row = -(-len(asteroid.slots) // 2)
        for slot in range(1, len(asteroid.slots) + 1):
            col, line = (slot - 1) % per_row, (slot - 1) // per_row
            x = cx + (col - (per_row - 1) / 2) * SLOT_PITCH_MM
            y = cy + ROW_PITCH_MM / 2 - line * ROW_PITCH_MM
            label = f"{asteroid.title} base slot {slot} ({asteroid.slots[slot - 1]} credits)"
            sites.append(Site(f"{asteroid.name}-{slot}", round(x, 2), round(y, 2), "base", label, (asteroid.name,)))
    inset = CORNER_MARKER_MM / 2 + 10
    right, top = WIDTH_MM - inset, HEIGHT_MM - inset
    corners = ((inset, inset), (right, inset), (right, top), (inset, top))
    return Board(
        name="periorbis",
        width=WIDTH_MM,
        height=HEIGHT_MM,
        sites=tuple(sites),
        links=tuple(links),
        fiducials=tuple(Fiducial(i, x, y, CORNER_MARKER_MM) for i, (x, y) in enumerate(corners)),
        notes="The orbit track (turn marker) along the top; each asteroid's base slots below, in the data's order.",
    )
