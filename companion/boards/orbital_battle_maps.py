"""The planet maps' terrain, read from one JSON file per planet (a shipped default, or the table's own file).

A file has `rows`: seven strings of nine characters, row 0 first, one character a hex (see LEGEND), and the
rulebook's features: `starports`, `resources`, `armory`. Bridges that touch no road count as grass; craters
that touch each other are one crater.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path

from companion.boards.files import BoardFileError
from companion.boards.orbital_battle import COLUMNS, ROWS, all_hexes, hex_id, planet_neighbours
from companion.jsonfile import file_stamp

LEGEND = {
    ".": "grass",
    "d": "desert",
    "F": "forest",
    "H": "hills",
    "S": "swamp",
    "C": "crater",
    "W": "water",
    "R": "road",
    "B": "bridge",
    "#": "edge",
}


@dataclass(frozen=True)
class PlanetMap:
    planet: str
    terrain: dict[str, str]  # hex -> terrain name
    starports: tuple[str, ...]
    resources: tuple[str, ...]
    armory: str

    def feature(self, hex_: str) -> str:
        if hex_ in self.starports:
            return "starport"
        if hex_ in self.resources:
            return "resource"
        return "armory" if hex_ == self.armory else ""

    def is_road(self, hex_: str) -> bool:
        kind = self.terrain[hex_]
        if kind == "bridge":  # a bridge is a road only where it meets one
            return any(self.terrain[n] == "road" for n in planet_neighbours(hex_))
        return kind == "road"

    @cached_property
    def hexes(self) -> tuple[str, ...]:
        """The hexes a piece can stand on (not the half-hexes at the edge)."""
        return tuple(h for h in all_hexes() if self.terrain[h] != "edge")

    @cached_property
    def rim(self) -> frozenset[str]:
        """The hexes on the planet's edge (where marines may set down, VII): those a piece can stand on that touch
        the map's border, a half-hex or the edge of the tile."""
        return frozenset(
            h
            for h in self.hexes
            if len(planet_neighbours(h)) < 6 or any(self.terrain[n] == "edge" for n in planet_neighbours(h))
        )

    @cached_property
    def craters(self) -> dict[str, int]:
        """Crater hex -> which crater (touching crater hexes are one crater)."""
        out: dict[str, int] = {}
        for h in self.hexes:
            if self.terrain[h] != "crater" or h in out:
                continue
            mark, todo = len(out) + 1, [h]
            while todo:
                here = todo.pop()
                if here in out:
                    continue
                out[here] = mark
                todo.extend(n for n in planet_neighbours(here) if self.terrain[n] == "crater" and n not in out)
        return out


def parse_map(data: object, planet: str, source: str) -> PlanetMap:
    """A PlanetMap from a terrain file's JSON; a BoardFileError names the file and the place that does not fit."""

    def fail(why: str) -> BoardFileError:
        return BoardFileError(f"{source}: {why}")

    if not isinstance(data, dict):
        raise fail("expected an object with rows, starports, resources and armory")
    rows = data.get("rows")
    if (
        not isinstance(rows, list)
        or len(rows) != ROWS
        or any(not isinstance(r, str) or len(r) != COLUMNS for r in rows)
    ):
        raise fail(f"rows: expected {ROWS} strings of {COLUMNS} characters")
    terrain = {}
    for row, text in enumerate(rows):
        for column, char in enumerate(text):
            if char not in LEGEND:
                raise fail(f"rows[{row}][{column}]: {char!r} is not one of {''.join(LEGEND)}")
            terrain[hex_id(column, row)] = LEGEND[char]
    lists = {}
    for key in ("starports", "resources"):
        value = data.get(key)
        if not isinstance(value, list) or len(value) != 3:
            raise fail(f"{key}: expected a list of 3 hexes (CCRR)")
        lists[key] = tuple(value)
    armory = data.get("armory")
    for hex_ in (*lists["starports"], *lists["resources"], armory):
        if hex_ not in terrain:
            raise fail(f"{hex_!r} is not a hex of the map (CCRR, columns 00-08, rows 00-06)")
        if terrain[hex_] in ("edge", "water"):
            raise fail(f"{hex_}: a feature cannot stand on {terrain[hex_]}")
    return PlanetMap(planet, terrain, lists["starports"], lists["resources"], armory)


def load_map(planet: str, path: str | None = None) -> PlanetMap:
    """A planet's terrain: the table's file when given, else the default shipped with the companion (read again
    once the file changes: a table may replace its terrain under the same name)."""
    return _load_map(planet, path, file_stamp(path))


@lru_cache(maxsize=32)
def _load_map(planet: str, path: str | None, stamp: int) -> PlanetMap:
    if path is None:
        resource = resources.files("companion.boards.orbital_battle_data").joinpath(f"planet{planet}.json")
        return parse_map(json.loads(resource.read_text()), planet, f"planet{planet}.json")
    try:
        text = Path(path).read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, ValueError) as error:
        raise BoardFileError(f"{path}: {error}") from None
    return parse_map(data, planet, path)
