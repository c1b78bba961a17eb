"""The deck, the mission markers' features and the space station tiles, read from a data file.

The default file (deck.json beside this module) is our own composition: the real 56 cards are not public. A table
with its own cards gives the `deck` option the path of a file of the same form (docs/rules/orbit.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from companion import codec
from companion.jsonfile import file_stamp, read_json
from companion.rules.engine import SetupError

DEFAULT_DECK = Path(__file__).with_name("deck.json")
MARKER_FEATURES = ("", "hand", "energy", "jump", "cannon")
STATION_KINDS = ("hand", "energy", "portal", "cannon", "fuel")


@dataclass(frozen=True)
class Card:
    id: str
    count: int = 1
    planets: tuple[tuple[str, int], ...] = ()
    wild: int = 0
    all: bool = False
    reverse: bool = False
    energy: int = 0
    max_energy: bool = False
    fly: int = 0
    nebula: bool = False


@dataclass(frozen=True)
class DeckFile:
    cards: tuple[Card, ...]
    all_order: tuple[str, ...]
    markers: dict[str, str]
    stations: dict[str, int]
    format: str = "orbit-deck"
    about: str = ""

    @property
    def by_id(self) -> dict[str, Card]:
        return {card.id: card for card in self.cards}

    @property
    def size(self) -> int:
        return sum(card.count for card in self.cards)


def load_deck(path: str = "") -> DeckFile:
    """The deck file at `path` ("" for the default), checked; a bad file is a SetupError naming the place (read
    again once the file changes: a table may replace its deck under the same name)."""
    return _load_deck(path, file_stamp(path))


@cache
def _load_deck(path: str, stamp: int) -> DeckFile:
    where = path or str(DEFAULT_DECK)
    try:
        deck = codec.from_json(DeckFile, read_json(where, SetupError), "deck")
    except codec.CodecError as error:
        raise SetupError(f"{where}: {error}") from None
    for i, card in enumerate(deck.cards):
        if card.count < 1 or any(n not in (1, 2) for _, n in card.planets):
            raise SetupError(f"{where}: deck.cards[{i}]: counts are at least 1 and planets advance 1 or 2 positions")
        twice = next((c for j, (c, _) in enumerate(card.planets) if c in [d for d, _ in card.planets[:j]]), None)
        if twice is not None:
            raise SetupError(
                f"{where}: deck.cards[{i}]: the {twice} planet is on it twice; a card shows each planet "
                "once (advance it 2 instead)"
            )
    for planet, feature in deck.markers.items():
        if feature not in MARKER_FEATURES:
            raise SetupError(f"{where}: deck.markers.{planet}: {feature!r} is not one of {MARKER_FEATURES}")
    for kind in deck.stations:
        if kind not in STATION_KINDS:
            raise SetupError(f"{where}: deck.stations.{kind}: not a station ({', '.join(STATION_KINDS)})")
    return deck


# The simple features: (card field, what the turn keeps, what the phones say), for a field that is set.
_SIMPLE = (
    ("reverse", lambda n: "reverse", lambda n: "reverse an arrow"),
    ("energy", lambda n: f"energy:{n}", lambda n: f"take {n} energy"),
    ("max_energy", lambda n: "max_energy", lambda n: "take the maximum energy"),
    ("fly", lambda n: f"fly:{n}", lambda n: f"fly {n}"),
    ("nebula", lambda n: "nebula", lambda n: "nebula"),
)


def features(card: Card, nebulas: bool, order: tuple[str, ...]) -> tuple[str, ...]:
    """A card's features as the turn keeps them: one entry for each thing to apply. Without the Artificial Nebulas
    module a nebula symbol is ignored."""
    out = [f"advance:{colour}:{n}" for colour, n in card.planets]
    out += [f"advance:{colour}:1" for colour in order] if card.all else []
    out += ["wild"] * card.wild
    shown = [(name, kept) for name, kept, _ in _SIMPLE if getattr(card, name) and (name != "nebula" or nebulas)]
    out += [kept(getattr(card, name)) for name, kept in shown]
    return tuple(out)


def feature_words(feature: str) -> str:
    """A feature the turn keeps ("advance:red:1", "fly:3") as players say it ("advance red 1", "fly 3")."""
    kind, _, rest = feature.partition(":")
    if kind == "advance":
        return "advance " + rest.replace(":", " ")
    if kind == "wild":
        return "wild planet"
    said = {name: words for name, _, words in _SIMPLE}.get(kind)
    return said(rest or 0) if said else feature.replace("_", " ")


def describe(card: Card) -> str:
    """ "advance red 1, gray 2; fly 3; take 1 energy" for the phones."""
    parts = ["advance " + ", ".join(f"{c} {n}" for c, n in card.planets)] if card.planets else []
    parts += ["advance every planet 1"] if card.all else []
    parts += [f"{card.wild} wild planet" + ("s" if card.wild > 1 else "")] if card.wild else []
    parts += [said(getattr(card, name)) for name, _, said in _SIMPLE if getattr(card, name)]
    return "; ".join(parts) or "nothing"


def heading(card: Card) -> str:
    """Where a player holding the card finds it among many: by the first planet symbol printed on it ("Red planet"),
    a wild symbol, or the every-planet symbol."""
    if card.planets:
        return f"{card.planets[0][0].capitalize()} planet"
    if card.all:
        return "Every planet"
    return "Wild planet" if card.wild else "No planet"
