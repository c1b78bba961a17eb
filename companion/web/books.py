"""Each game's books in words: the rules' ledger turned into short labelled rows (names, numbers, site names; never
JSON, ids or true/false) for the page's cards, one card per seat and one for the table; each game declares its labels
(`Game.ledger_labels`) and the counters it says its own way (`Game.ledger_shown`)."""

from __future__ import annotations

from typing import Any

from companion.rules import Game, load
from companion.web.option_words import words_for
from companion.web.words import Words


def _option(game: str, key: str, value: Any) -> str | None:
    """A game option's value as the New game form names it ("simple" -> "Simple"), or None: not an option's."""
    name = words_for(game, key).choices.get(value) if isinstance(value, str) else None
    return name.split(":")[0] if name else None


def _rows(engine: Game, counters: dict[str, Any], words: Words, seat: str | None) -> list[list[str]]:
    labels = engine.ledger_labels  # a label where the counter's own name would not say it; None: not shown
    rows = []
    for key, value in counters.items():
        label = labels.get(key, words.key(key))
        if label is None:
            continue
        shown = engine.ledger_shown.get(key)  # a counter the game says in a way of its own
        if shown is not None:
            rows.append([label, shown(value, words.value)])
            continue
        if isinstance(value, dict) and seat is not None and list(value) == [seat]:
            value = value[seat]  # a map keyed by the seat itself (ORBIT's markers): just the value
        rows.append([label, _option(engine.name, key, value) or words.value(value)])
    return rows


def books(game: str, ledger: dict[str, Any], words: Words) -> dict[str, Any]:
    """{"players": [{"seat", "name", "rows": [[label, text], ...]}], "table": [[label, text], ...]}."""
    engine = load(game)
    players = [
        {"seat": seat, "name": words.seat(seat), "rows": _rows(engine, counters, words, seat)}
        for seat, counters in (ledger.get("players") or {}).items()
    ]
    return {"players": players, "table": _rows(engine, ledger.get("table") or {}, words, None)}
