"""How the rules name things to players."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.rules.orbit.space import space
from companion.rules.orbit.state import PRISM, State
from companion.rules.words import a as a
from companion.rules.words import plural as plural

POSITIONS = {1: "one position", 2: "two positions"}
STATION_NAMES = {
    "hand": "hand size upgrade station",
    "energy": "energy capacity upgrade station",
    "portal": "hyper jump portal station",
    "cannon": "hyper accelerator cannon station",
    "fuel": "fuel depot",
    PRISM: "PRISM disc",
}
NAV_NAMES = {"swap": "swap-your-hand", "jump": "hyper jump", "energy": "maximum energy"}


def who(name: str) -> str:
    return name.capitalize()


def planet_name(colour: str) -> str:
    return "PRISM" if colour == PRISM else f"the {colour} planet"


def where(state: State, site: str) -> str:
    return space(state.material).board.site(site).name


def ship_name(state: State, colour: str) -> str:
    """ "Red's spaceship", or "Red's blue spaceship" for a dual-spaceship player's second ship."""
    owner = state.ships[colour].owner
    return f"{who(owner)}'s spaceship" if owner == colour else f"{who(owner)}'s {colour} spaceship"


def markers_words(markers: dict[str, list[str]] | list[str], words: Callable[[Any], str]) -> str:
    """The books' mission markers still to place, by the planets' colours (never a seat's name: "green", not
    "Green"); with two spaceships (dual), by ship."""
    if isinstance(markers, dict):
        if len(markers) == 1:
            return markers_words(next(iter(markers.values())), words)
        return "; ".join(f"{ship.capitalize()}: {markers_words(of, words)}" for ship, of in markers.items())
    return ", ".join(markers) or "none"
