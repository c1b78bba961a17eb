"""How the rules name things to players."""

from __future__ import annotations

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


def plural(n: int, noun: str) -> str:
    """ "1 crate", "3 crates"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def employee(slot: int) -> str:
    return f"employee {slot}"


def place(where: str) -> str:
    """ "the HQ", "storage", or an asteroid's name."""
    if where in ("hq", "storage"):
        return "the HQ" if where == "hq" else "the HQ storage"
    return where.capitalize()


def vp(n: int) -> str:
    return plural(n, "victory point")
