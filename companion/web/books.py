"""Each game's books in words: the rules' ledger turned into short labelled rows (names, numbers, site names; never
JSON, ids or true/false) for the page's cards, one card per seat and one for the table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.web.words import Words

# Per game: a label where the counter's own name would not say it, and counters players do not need (None).
LABELS: dict[str, dict[str, str | None]] = {
    "trajectory": {"site": "Where", "class": "Ship class", "weight": "Cargo weight", "piles": "Cards in the piles",
                   "planets_infested": "Infested planets"},
    "orbit": {"hand": "Cards in hand", "sites": "Where", "markers": "Markers to place", "engine": "Engine fitted",
              "friendship_tile": "Friendship tile", "deck": "Cards in the deck"},
    "dakalio": {"reserve": "Ships in reserve", "inside": "Ships on the mat", "first": "First player",
                "dakalio_carried": "Carrying Dakalio", "dakalio_delivered": "Dakalio delivered",
                "dakalio_taken": "Dakalio taken", "game": "Game of the match"},
    "orbital_battle": {"build_points": "Build points", "home": "Home world", "player_1": "First player",
                       "phase": None, "planets": "Planets"},
    "periorbis": {"vp": "Victory points", "hq_slots": "HQ slots", "top_employee": None, "order": "Turn order",
                  "fleet_used": "Fleet used", "wages_due": "Wages due"},
}  # fmt: skip


def _employees(employees: dict[str, Any], words: Words) -> str:
    """Periorbis's employees by HQ slot: each one's role and where the disc stands ("2: engineer at HQ"); the card
    numbers stay out (a starting employee's card has none printed)."""
    if not employees:
        return "none"
    said = []
    for slot, employee in employees.items():
        where = employee.get("where", "hq")
        at = "at HQ" if where == "hq" else f"on {words.scalar(where)}"
        acted = ", has acted" if employee.get("acted") else ""
        said.append(f"{slot}: {employee.get('role', 'employee')} {at}{acted}")
    return "; ".join(said)


# Per game: counters shown by a presentation of their own rather than the generic one.
SHOWN: dict[str, dict[str, Callable[[Any, Words], str]]] = {"periorbis": {"employees": _employees}}


def _rows(game: str, counters: dict[str, Any], words: Words, seat: str | None) -> list[list[str]]:
    labels = LABELS.get(game, {})
    rows = []
    for key, value in counters.items():
        label = labels.get(key, words.key(key))
        if label is None:
            continue
        shown = SHOWN.get(game, {}).get(key)
        if shown is not None:
            rows.append([label, shown(value, words)])
            continue
        if isinstance(value, dict) and seat is not None and list(value) == [seat]:
            value = value[seat]  # a map keyed by the seat itself (ORBIT's markers): just the value
        if value is None and key == "portals":
            rows.append([label, "not chosen yet"])
            continue
        rows.append([label, words.value(value)])
    return rows


def books(game: str, ledger: dict[str, Any], words: Words) -> dict[str, Any]:
    """{"players": [{"seat", "name", "rows": [[label, text], ...]}], "table": [[label, text], ...]}."""
    players = [
        {"seat": seat, "name": words.seat(seat), "rows": _rows(game, counters, words, seat)}
        for seat, counters in (ledger.get("players") or {}).items()
    ]
    return {"players": players, "table": _rows(game, ledger.get("table") or {}, words, None)}
