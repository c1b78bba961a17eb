"""The planet terrain editor: an Orbital Battle planet's hexes, their terrain and its starports, resource clusters
and armory, checked as the game reads a planet's file and saved as one of the table's data sets."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from flask import Blueprint, Response, jsonify, request

from companion.boards.orbital_battle import COLUMNS, ROWS
from companion.boards.orbital_battle_maps import LEGEND, load_map
from companion.rules import load
from companion.table import library
from companion.table.datasets import quoted
from companion.web.body import UPLOAD_BYTES, field, json_body, takes
from companion.web.context import table
from companion.web.editor import save_checked, trial
from companion.web.errors import BadInput
from companion.web.guard import requires_host, requires_phone
from companion.web.pages import _file

planets = Blueprint("planets", __name__)
GAME, OPTION = "orbital_battle", "planet_files"
OWN = tuple(load(GAME).data_options[OPTION].keys)  # the game's own planets, by number


@planets.get("/editor/planet")
def page() -> Response:
    return _file("editor.html", "text/html")


@planets.get("/api/editor/planet")
def start() -> Response:
    """A planet's terrain to start from: one of the game's eight ("1" to "8") or one of the table's."""
    name = request.args.get("start", OWN[0])
    sets = table().datasets
    if name in OWN:
        text = resources.files("companion.boards.orbital_battle_data").joinpath(f"planet{name}.json").read_text()
        data = json.loads(text)
    elif name in sets.names(GAME, OPTION):
        data = library.export(sets, [(GAME, OPTION, name)])["sets"][0]["data"]
    else:
        raise BadInput(f"start: {quoted(name)} is no planet map at this table", 404)
    return jsonify(
        start=name,
        planet=data,
        starts=[*OWN, *sets.names(GAME, OPTION)],
        legend={char: kind for char, kind in LEGEND.items()},
        columns=COLUMNS,
        rows=ROWS,
    )


def problems(data: Any) -> list[str]:
    return trial(GAME, OPTION, data, "terrain", lambda path: load_map("1", path))


@planets.post("/api/editor/planet/check")
@requires_phone
@takes(UPLOAD_BYTES, lane="check")
def check() -> Response:
    return jsonify(problems=problems(field(json_body(), "planet", dict)))


@planets.post("/api/editor/planet/save")
@requires_host
@takes(UPLOAD_BYTES, lane="check")
def save() -> tuple[Response, int]:
    return save_checked(GAME, OPTION, "planet", problems)
