"""Maps beside a game's board that the page can open (Orbital Battle's planet surfaces: each a map of hexes by
terrain, with its starports, resources and armory), as the game declares them (`Game.surfaces`, `Game.surface`). Their
sites are named as the layout names them ("p3:0402"), so the units the layout puts there are drawn on them and a tap
on one plays like a tap on the board."""

from __future__ import annotations

from typing import Any

from companion.rules import Game, load
from companion.web.boardmap import board_json


def surfaces(game: str) -> list[dict[str, str]]:
    """The maps the page may open beside the board: [{"id", "name"}] (none for a game with one board)."""
    return [{"id": surface.id, "name": surface.name} for surface in load(game).surfaces]


def surface_json(game: Game, state: Any, surface: str) -> dict[str, Any] | None:
    """One surface as the map draws a board, as the game was set up with it (None: the game has no such map)."""
    board = game.surface(state, surface)
    if board is None:
        return None
    data = board_json(board)
    name = next(s.name for s in game.surfaces if s.id == surface)
    # Hexes show their neighbours by touching; the columns stand upright, so the hexes lie flat side up.
    data.update(links=[], orbits={}, hexes="flat", surface=surface, title=name)
    return data
