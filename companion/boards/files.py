"""Board files: a board as JSON, read with checks that name the file and the field that is wrong."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from companion import codec
from companion.boards.model import Board
from companion.jsonfile import read_json


class BoardFileError(ValueError):
    """A board file that cannot be used; the message names the file and the place."""


def board_to_json(board: Board) -> dict[str, Any]:
    return codec.to_json(board)


def board_from_json(data: Any, source: str = "board") -> Board:
    """A Board from its JSON form, checking the shape and that every link and orbit names a real site."""
    try:
        board = codec.from_json(Board, data, "board")
    except codec.CodecError as error:
        raise BoardFileError(f"{source}: {error}") from None
    ids = [site.id for site in board.sites]
    seen: set[str] = set()
    for i, site_id in enumerate(ids):
        if site_id in seen:
            raise BoardFileError(f"{source}: board.sites[{i}].id: {site_id!r} is used twice")
        seen.add(site_id)
    for i, link in enumerate(board.links):
        for end in (link.a, link.b):
            if end not in seen:
                raise BoardFileError(f"{source}: board.links[{i}]: no site {end!r}")
    for name, cycle in board.orbits.items():
        for site_id in cycle:
            if site_id not in seen:
                raise BoardFileError(f"{source}: board.orbits.{name}: no site {site_id!r}")
    named: dict[str, str] = {}
    for i, site in enumerate(board.sites):  # the phones say a site by its name: two alike would be one place
        said = " ".join(site.name.split()).casefold()  # "Far Point" and "far  point" read the same aloud
        if said in named:
            raise BoardFileError(
                f"{source}: board.sites[{i}] ({site.id}): the name {site.name!r} is already "
                f"{named[said]}'s; give each site a name of its own"
            )
        named[said] = site.id
    for i, site in enumerate(board.sites):
        if not (0 <= site.x <= board.width and 0 <= site.y <= board.height):
            raise BoardFileError(f"{source}: board.sites[{i}] ({site.id}) lies outside the board")
    return board


def load_board(path: str | Path) -> Board:
    return board_from_json(read_json(path, BoardFileError), str(path))


def save_board(board: Board, path: str | Path) -> None:
    Path(path).write_text(json.dumps(board_to_json(board), indent=1) + "\n", encoding="utf-8")
