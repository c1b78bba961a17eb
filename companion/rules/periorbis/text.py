"""How the rules name things to players."""

from __future__ import annotations

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
