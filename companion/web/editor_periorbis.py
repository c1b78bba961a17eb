"""The Periorbis data editor: the employee and ship cards, the orbit track, the asteroids and the start team, each
card in words, checked as the game reads its data folder (each problem naming the card or the field), and saved as
one of the table's data sets (the game's `data` option)."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, jsonify, request

from companion.rules import SetupError
from companion.rules.periorbis.datafiles import FILES, ORES, Card, ShipCard, default_path, load
from companion.table import library
from companion.table.datasets import quoted
from companion.web.body import UPLOAD_BYTES, field, json_body, takes
from companion.web.context import table
from companion.web.editor import save_checked
from companion.web.errors import BadInput
from companion.web.guard import requires_host, requires_phone
from companion.web.pages import _file

periorbis = Blueprint("periorbis", __name__)
GAME, OPTION = "periorbis", "data"
OWN = ""  # the game's own data, as the data option names it
SKILLS = {
    "build": "{} credits off building",
    "upgrade": "{} research data off an upgrade",
    "contract": "{} bonus on contracts",
    "sell": "sells {} crates",
    "captain": "carries {} cargo",
    "research": "researches {}",
    "black": "mines {} from black ore",
    "grey": "mines {} from grey ore",
    "white": "mines {} from white ore",
}
BASIC = Card(0, "basic", 1).skills  # what a card does that is no more than a basic employee's goes unsaid


@periorbis.get("/editor/periorbis")
def page() -> Response:
    return _file("editor.html", "text/html")


@periorbis.get("/api/editor/periorbis")
def start() -> Response:
    """The data to start from, all five files: the game's own ("") or one of the table's sets (a set's missing files
    are the game's own, as the game reads them)."""
    name = request.args.get("start", OWN)
    sets = table().datasets
    files = {file: library.read_data(default_path(file)) for file in FILES}
    if name in sets.names(GAME, OPTION):
        files.update(library.export(sets, [(GAME, OPTION, name)])["sets"][0]["files"])
    elif name != OWN:
        raise BadInput(f"start: {quoted(name)} is no Periorbis data at this table", 404)
    return jsonify(
        start=name,
        files=files,
        starts=[OWN, *sets.names(GAME, OPTION)],
        ores=list(ORES),
        roles=["basic", "agent", "captain", "engineer", "scientist", "miner"],
    )


def problems(files: Any) -> tuple[list[str], dict[str, str]]:
    """What keeps the game from starting on these files (one line naming the card or the field), and every card in
    words (employee cards by number, ship cards by name)."""
    if not isinstance(files, dict) or set(files) - set(FILES):
        return [f"files: expected some of {', '.join(FILES)}"], {}
    with tempfile.TemporaryDirectory(prefix="orrery-editing-") as folder:
        for name, data in files.items():
            library.write_file(Path(folder) / name, data)
        try:
            library.check(GAME, OPTION, folder, "data")
            data = load(folder)
        except SetupError as error:
            return [named(str(error).replace(f"{folder}/", ""), files)], {}
    words = {f"employee {card.number}": employee_words(card) for card in data.cards.values()}
    words.update({f"ship {ship.id}": ship_words(ship) for ship in data.ships.values()})
    return [], words


def employee_words(card: Card) -> str:
    skills = [text.format(getattr(card.skills, key)) for key, text in SKILLS.items()
              if getattr(card.skills, key) != getattr(BASIC, key)]  # fmt: skip
    return f"{card.role}, paid {card.wage}" + (f": {', '.join(skills)}" if skills else "")


def ship_words(ship: ShipCard) -> str:
    rows = "; ".join(f"{row.size} crates for {row.advance} credits" for row in ship.rows)
    return (
        f"{ship.price} credits a crate, {ship.spaces} spaces, leaves once {ship.minimum} are filled; contracts: {rows}"
    )


_PLACES = (
    (re.compile(r"employees\.json: employees\.(start|decks\[(\d+)\])\[(\d+)\]\.?"), "employees"),
    (re.compile(r"ships\.json: ships\.decks\[(\d+)\]\[(\d+)\]\.?"), "ships"),
    (re.compile(r"orbit\.json: orbit\.turns\[(\d+)\]\.?"), "orbit"),
    (re.compile(r"asteroids\.json: asteroids\.asteroids\[(\d+)\]\.?"), "asteroids"),
    (re.compile(r"setup\.json: setup\.start_team\[(\d+)\]"), "team"),
)


def named(text: str, files: dict[str, Any]) -> str:
    """A problem at a place in a file, said of the card, the turn or the asteroid that is there."""
    for pattern, kind in _PLACES:
        match = pattern.search(text)
        if match is None:
            continue
        place = _place(kind, match.groups(), files)
        if place is not None:
            rest = text[match.end() :].lstrip(".")
            return f"{place}{', ' + rest if rest and not rest.startswith(':') else rest}"
    return text


def _item(files: dict[str, Any], name: str, *keys: Any) -> Any:
    item = files.get(name)
    for key in keys:
        if isinstance(item, dict) and isinstance(key, str):
            item = item.get(key)
        elif isinstance(item, list) and isinstance(key, int) and key < len(item):
            item = item[key]
        else:
            return None
    return item


def _place(kind: str, groups: tuple[str | None, ...], files: dict[str, Any]) -> str | None:
    if kind == "employees":
        group, deck, index = groups
        keys = ("start",) if group == "start" else ("decks", int(deck or 0))
        card = _item(files, "employees.json", *keys, int(index or 0))
        number = card.get("number") if isinstance(card, dict) else None
        if group == "start":  # start cards go by their place and role: their numbers only rank them in tie-breaks
            return f"start card {int(index or 0) + 1} ({card.get('role')})" if isinstance(card, dict) else None
        return f"employee card {number} (deck {int(deck or 0) + 1})" if isinstance(number, int) else None
    if kind == "ships":
        ship = _item(files, "ships.json", "decks", int(groups[0] or 0), int(groups[1] or 0))
        ship_id = ship.get("id") if isinstance(ship, dict) else None
        return f"ship card {ship_id}" if isinstance(ship_id, str) else None
    if kind == "orbit":
        return f"orbit track, turn {int(groups[0] or 0) + 1}"
    if kind == "asteroids":
        rock = _item(files, "asteroids.json", "asteroids", int(groups[0] or 0))
        title = rock.get("name") if isinstance(rock, dict) else None
        return f"asteroid {title}" if isinstance(title, str) else None
    return f"start team, HQ slot {int(groups[0] or 0) + 1}"


@periorbis.post("/api/editor/periorbis/check")
@requires_phone
@takes(UPLOAD_BYTES, lane="check")
def check() -> Response:
    found, words = problems(field(json_body(), "files", dict))
    return jsonify(problems=found, cards=words)


@periorbis.post("/api/editor/periorbis/save")
@requires_host
@takes(UPLOAD_BYTES, lane="check")
def save() -> tuple[Response, int]:
    return save_checked(GAME, OPTION, "files", lambda files: problems(files)[0])
