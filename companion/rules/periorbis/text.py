"""How the rules name things to players."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.rules.words import a as a
from companion.rules.words import plural as plural

ROLE_NAMES = {
    "basic": "basic employee",
    "agent": "specialist agent",
    "captain": "specialist captain",
    "engineer": "specialist engineer",
    "scientist": "specialist scientist",
    "miner": "specialist miner",
}


def who(player: str) -> str:
    return player.capitalize()


def employee(slot: int) -> str:
    return f"employee {slot}"


def place(where: str) -> str:
    """ "the HQ", "storage", or an asteroid's name."""
    if where in ("hq", "storage"):
        return "the HQ" if where == "hq" else "the HQ storage"
    return where.capitalize()


def money(n: int) -> str:
    """ "1 credit", "12 credits"."""
    return plural(n, "credit")


def vp(n: int) -> str:
    return plural(n, "victory point")


def employees_words(employees: dict[str, Any], words: Callable[[Any], str]) -> str:
    """The books' employees by HQ slot: each one's role and where the disc stands ("2: engineer at HQ"); the card
    numbers stay out (a starting employee's card has none printed). `words` names a site."""
    if not employees:
        return "none"
    said = []
    for slot, hired in employees.items():
        where = hired.get("where", "hq")
        at = "at HQ" if where == "hq" else f"on {words(where)}"
        acted = ", has acted" if hired.get("acted") else ""
        said.append(f"{slot}: {hired.get('role', 'employee')} {at}{acted}")
    return "; ".join(said)
