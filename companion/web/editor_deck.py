"""The deck editor: ORBIT's cards by what they do, the mission markers' features and the station tiles, checked as
the game reads a deck (each problem naming the card), and saved as one of the table's data sets."""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, Response, jsonify, request

from companion.rules.orbit.data import DEFAULT_DECK, MARKER_FEATURES, STATION_KINDS, DeckFile, describe, load_deck
from companion.table import library
from companion.table.datasets import quoted
from companion.web.body import UPLOAD_BYTES, field, json_body, takes
from companion.web.context import table
from companion.web.editor import save_checked, trial
from companion.web.errors import BadInput
from companion.web.guard import requires_host, requires_phone
from companion.web.pages import _file

decks = Blueprint("decks", __name__)
OWN = ""  # the game's own deck, as the deck option names it
CARD = re.compile(r"deck\.cards\[(\d+)\]")


@decks.get("/editor/deck")
def page() -> Response:
    return _file("editor.html", "text/html")


@decks.get("/api/editor/deck")
def start() -> Response:
    """A deck to start from: the game's own ("") or one of the table's, with what the editor offers."""
    name = request.args.get("start", OWN)
    sets = table().datasets
    if name == OWN:
        data = library.read_data(DEFAULT_DECK)
    elif name in sets.names("orbit", "deck"):
        data = library.export(sets, [("orbit", "deck", name)])["sets"][0]["data"]
    else:
        raise BadInput(f"start: {quoted(name)} is no deck at this table", 404)
    return jsonify(
        start=name,
        deck=data,
        starts=[OWN, *sets.names("orbit", "deck")],
        features=list(MARKER_FEATURES),
        stations=list(STATION_KINDS),
    )


def problems(data: Any) -> tuple[list[str], dict[str, str]]:
    """What keeps the game from dealing this deck (each naming its card by id), and each card in words."""
    read: list[DeckFile] = []
    found = trial("orbit", "deck", data, "deck", lambda path: read.append(load_deck(path)))
    if found:
        return [_named(found[0], data)], {}
    return [], {card.id: describe(card) for card in read[0].cards}


def _named(text: str, data: Any) -> str:
    """'deck.cards[3]: ...' as 'card c04: ...' (the card's own name)."""
    cards = data.get("cards") if isinstance(data, dict) else None

    def name(match: re.Match[str]) -> str:
        i = int(match.group(1))
        card = cards[i] if isinstance(cards, list) and i < len(cards) else None
        return f"card {card['id']}" if isinstance(card, dict) and isinstance(card.get("id"), str) else match.group(0)

    return CARD.sub(name, text)


@decks.post("/api/editor/deck/check")
@requires_phone
@takes(UPLOAD_BYTES, lane="check")
def check() -> Response:
    data = field(json_body(), "deck", dict)
    found, words = problems(data)
    cards = data.get("cards") if isinstance(data.get("cards"), list) else []
    size = sum(c.get("count", 1) for c in cards if isinstance(c, dict) and isinstance(c.get("count", 1), int))
    return jsonify(problems=found, cards=words, size=size)


@decks.post("/api/editor/deck/save")
@requires_host
@takes(UPLOAD_BYTES, lane="check")
def save() -> tuple[Response, int]:
    return save_checked("orbit", "deck", "deck", lambda deck: problems(deck)[0])
