"""How the rules name things to players."""

from __future__ import annotations

from companion.rules.trajectory.movement import board
from companion.rules.words import a as a
from companion.rules.words import plural as plural

OUTFIT_NAMES = {
    "none": "no class",
    "miner": "miner",
    "interceptor": "interceptor",
    "engineer": "engineer",
    "heavy_lift": "heavy lift",
}
STATION_NAMES = {
    "storage": "storage ring",
    "trap": "infestor trap",
    "accelerator": "accelerator ring",
    "fuel_depot": "fuel depot",
    "refit": "refit station",
    "habitat": "orbital habitat",
}


def who(ship: str) -> str:
    return ship.capitalize()


def where(site: str) -> str:
    return board().site(site).name


def amounts(goods: dict[str, int]) -> str:
    """ "2 fuel and 1 metal", "1 action card": counted nouns get their plural, mass nouns stay as they are."""
    parts = [plural(n, good) if good == "action card" else f"{n} {good}" for good, n in goods.items() if n]
    return " and ".join(parts) if parts else "nothing"
