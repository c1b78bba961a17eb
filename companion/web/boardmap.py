"""A board as the page's SVG map needs it: sites and links in board millimetres, y pointing down as SVG's does."""

from __future__ import annotations

from typing import Any

from companion.boards import Board


def board_json(board: Board) -> dict[str, Any]:
    def y(value: float) -> float:
        return round(board.height - value, 2)

    return {
        "name": board.name,
        "width": board.width,
        "height": board.height,
        "sites": [
            {"id": s.id, "x": round(s.x, 2), "y": y(s.y), "kind": s.kind, "name": s.name, "tags": list(s.tags)}
            for s in board.sites
        ],
        "links": [{"a": link.a, "b": link.b, "kind": link.kind, "directed": link.directed} for link in board.links],
        "orbits": {name: list(cycle) for name, cycle in board.orbits.items()},
    }
