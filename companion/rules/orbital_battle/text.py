"""How the rules name things to players."""

from __future__ import annotations

from companion.rules.orbital_battle.state import Unit
from companion.rules.words import a as a
from companion.rules.words import plural as plural

KIND_NAMES = {
    "army": "army",
    "mech_infantry": "mechanized infantry",
    "marines": "marines",
    "armor": "armor",
    "artillery": "artillery",
    "air_force": "air force",
    "militia": "militia",
    "transport": "transport",
    "destroyer": "destroyer",
    "light_cruiser": "light cruiser",
    "missile_cruiser": "missile cruiser",
    "heavy_cruiser": "heavy cruiser",
    "battle_cruiser": "battle-cruiser",
    "battleship": "battleship",
    "planet_defense": "planet defense",
    "factory": "factory",
}


def who(player: str) -> str:
    return player.capitalize()


def name(u: Unit) -> str:
    """ "Red's army 3"."""
    return f"{who(u.owner)}'s {KIND_NAMES[u.kind]} {u.number}"


def place(site: str) -> str:
    """ "planet 3 hex 0402", "solar hex r3s7", "the star"."""
    if site.startswith("p"):
        planet, hex_ = site[1:].split(":")
        return f"planet {planet} hex {hex_}"
    if site == "sun":
        return "the star"
    return f"solar hex {site}"
