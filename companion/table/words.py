"""Pieces in words, as the phones name them."""

from __future__ import annotations

from companion.rules.engine import unpointed

COLOURS = frozenset(
    {
        "red",
        "green",
        "blue",
        "yellow",
        "orange",
        "purple",
        "white",
        "black",
        "brown",
        "gray",
        "grey",
        "silver",
        "teal",
        "pink",
    }
)


def piece_words(piece: str) -> str:
    """A piece id in words. Ids name the kind first ("planet-red" -> "red planet", "station-energy" -> "energy
    station"), whichever way it points ("planet-red>r1s1"), unless they start with a colour ("red-dakalio") or end
    in a number ("planet-1") or in "marker"."""
    parts = unpointed(piece).split("-")
    if len(parts) == 2 and parts[0] not in COLOURS and not parts[1].isdigit() and parts[1] != "marker":
        return f"{parts[1]} {parts[0]}"
    return " ".join(parts)


def listing(items: list[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
