"""Maps of a game beside its board that the page can open: Orbital Battle's planet surfaces, each a map of hexes by
terrain (with its starports, resources and armory), whose sites are the surface hexes the rules name "pN:CCRR", so
the units the layout puts there are drawn on them and a tap on one plays like a tap on the solar map."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.boards.files import BoardFileError
from companion.boards.orbital_battle import all_hexes, planet_board
from companion.boards.orbital_battle_maps import load_map
from companion.web.boardmap import board_json

PLANETS = tuple("12345678")


def surfaces(game: str) -> list[dict[str, str]]:
    """The maps the page may open beside the board: [{"id", "name"}] (none for a game with one board)."""
    return [{"id": planet, "name": f"Planet {planet}"} for planet in PLANETS] if game == "orbital_battle" else []


def surface_json(game: str, options: Mapping[str, Any], surface: str) -> dict[str, Any] | None:
    """One planet's surface as the map draws a board (None: the game has no such surface). Its terrain is the
    table's own planet file when the game's options name one, else the companion's."""
    if game != "orbital_battle" or surface not in PLANETS:
        return None
    try:
        pmap = load_map(surface, (options.get("planet_files") or {}).get(surface))
    except BoardFileError:
        pmap = load_map(surface)  # a file gone since the game began: the companion's own map of that planet
    features = {h: pmap.feature(h) for h in all_hexes() if pmap.feature(h)}
    data = board_json(planet_board(int(surface), pmap.terrain, features))
    prefix = f"p{surface}:"
    for site in data["sites"]:
        site["id"] = prefix + site["id"]
    # Hexes show their neighbours by touching; the columns stand upright, so the hexes lie flat side up.
    data.update(links=[], orbits={}, hexes="flat", surface=surface, title=f"Planet {surface}")
    return data
