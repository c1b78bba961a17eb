"""Internal values in the words players use: site ids as the board names them, pieces as "Green's ship", keys as
labels, and any ledger value (numbers, lists, maps, flags) as a short text with no JSON in it."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from typing import Any

from companion.boards import Board
from companion.rules.engine import points_to, unpointed

KINDS_OWNED_BY_NAME = {"planet", "station", "asteroid", "turn", "infestor"}  # "yellow planet", not "Yellow's planet"
_SURFACE = re.compile(r"^p(\d+):(\d+)$")  # a planet's surface hex (Orbital Battle), not a site of the board
_NAME = r"[A-Za-z0-9][A-Za-z0-9:_-]*[A-Za-z0-9]"
_TOKEN = re.compile(rf"{_NAME}(?:>{_NAME})?")  # a piece may point to a site: planet-red>r1s1
_CARD = re.compile(r"\bcard c\d+\b")  # ORBIT's cards carry no number in the box: "a card", then its summary
_COLOURS = {
    "red",
    "orange",
    "yellow",
    "green",
    "blue",
    "purple",
    "brown",
    "gray",
    "grey",
    "white",
    "black",
    "pink",
    "teal",
    "silver",
}
_PIECE_KINDS = {"ship", "planet", "station", "base", "army", "fleet", "infestor", "marker"}


def named(text: str, names: Mapping[str, str]) -> str:
    """A sentence addressed to the table with each seat whose player gave a name said as the page's header says it
    ("Red: play a card." -> "Ann (Red): play a card.")."""
    given = {seat[:1].upper() + seat[1:]: name for seat, name in names.items() if name}
    if not given:
        return text
    colours = re.compile(rf"(?<![(\w])({'|'.join(map(re.escape, given))})\b")
    return colours.sub(lambda m: f"{given[m.group(1)]} ({m.group(1)})", text)


class Words:
    """The names of one table: its board's sites and its seats."""

    def __init__(self, board: Board, seats: Collection[str]) -> None:
        self.sites = {site.id: site.name for site in board.sites}
        self.seats = set(seats)
        # Names the board prints with a capital (Periorbis's asteroids: "Ada base slot 1"), for the ledger's "ada".
        self.proper = {name.split()[0] for name in self.sites.values() if name[:1].isupper() and " " in name}
        # Site names already said in words ("e4 (red base)"), which hold their id: said once, not named again.
        named = sorted(
            {name for site, name in self.sites.items() if name != site and site in name}, key=len, reverse=True
        )
        self._named = re.compile("(" + "|".join(map(re.escape, named)) + ")") if named else None

    def seat(self, name: str) -> str:
        return name[:1].upper() + name[1:]

    def site(self, site: str) -> str:
        surface = _SURFACE.match(site)
        if surface:
            return f"planet {surface[1]} hex {surface[2]}"
        return self.sites.get(site, site)

    def piece(self, piece: str) -> str:
        """ship-green -> Green's ship; planet-metal -> metal planet; ship-blue-red -> Red's blue ship;
        planet-red>r1s1 -> red planet pointing to ring 1 spot 1."""
        heading = points_to(piece)
        if heading:
            return f"{self.piece(unpointed(piece))} pointing to {self.site(heading)}"
        kind, *rest = piece.split("-")
        if kind in self.seats and rest:  # red-army-1: Red's army 1
            return f"{self.seat(kind)}'s {' '.join(rest)}".replace("_", " ")
        owners = [part for part in rest if part in self.seats]
        if rest and rest[-1] in ("marker", "tile", "token"):  # turn-marker: the turn marker
            return " ".join(["the", kind, *rest]).replace("_", " ")
        if not owners or (kind in KINDS_OWNED_BY_NAME and len(rest) == 1):
            if rest and all(part.isdigit() for part in rest):
                return " ".join([kind, *rest])  # planet-3: planet 3
            return " ".join([*rest, kind]).replace("_", " ")
        owner = owners[-1]
        others = [part for part in rest if part != owner]
        # ship-blue-red: Red's blue ship (a colour says which); air-force-green: Green's air force (a kind of two words)
        colours = [part for part in others if part in _COLOURS]
        words = [*colours, kind, *(part for part in others if part not in _COLOURS)]
        return f"{self.seat(owner)}'s {' '.join(words)}".replace("_", " ")

    def text(self, text: str) -> str:
        """A sentence as players read it: a site id that slipped into it becomes the board's name for the site, a
        piece id the piece in words, a snake_case name plain words."""
        text = _CARD.sub("a card", text)
        return self._outside_names(text, lambda part: _TOKEN.sub(self._token, part))

    def places(self, text: str) -> str:
        """A message with only its site ids said as the board names them (the rest, such as a request's own words
        quoted back, left as it was)."""
        return self._outside_names(
            text,
            lambda part: _TOKEN.sub(lambda m: self.site(m.group()) if m.group() in self.sites else m.group(), part),
        )

    def _outside_names(self, text: str, change: Callable[[str], str]) -> str:
        """`change` applied to the text between the site names already in words."""
        if self._named is None:
            return change(text)
        parts = self._named.split(text)  # names at the odd places
        return "".join(part if index % 2 else change(part) for index, part in enumerate(parts))

    def _token(self, match: re.Match[str]) -> str:
        token = match.group()
        if ">" in token:  # a piece whose arrow points to a site; else two tokens that happen to touch
            piece, _, heading = token.partition(">")
            if "-" in piece and heading in self.sites:
                return self.piece(token)
            return ">".join(_TOKEN.sub(self._token, part) for part in (piece, heading))
        if token.isalpha() and token not in self.sites:
            return token  # a plain word, as most are: nothing below could change it
        if token in self.sites or _SURFACE.match(token):
            return self.site(token)
        parts = token.split("-")
        # a piece: a kind the games share (ship-red, turn-marker), or any kind a seat owns (transport-green, red-army-1)
        if "-" in token and token.islower() and (_PIECE_KINDS.intersection(parts) or self.seats.intersection(parts)):
            return self.piece(token)
        if "_" in token and token.islower():
            return token.replace("_", " ")
        return token

    def key(self, key: str) -> str:
        text = key.replace("_", " ").replace("-", " ").strip()
        return text[:1].upper() + text[1:]

    def scalar(self, value: Any) -> str:
        if value is None:
            return "—"
        if value is True:
            return "yes"
        if value is False:
            return "no"
        if isinstance(value, float):
            return f"{value:g}"
        if isinstance(value, str):
            if value in self.seats:
                return self.seat(value)
            if value in self.sites or _SURFACE.match(value):
                return self.site(value)
            if value.capitalize() in self.proper:
                return value.capitalize()
            return self.text(value)
        return str(value)

    def value(self, value: Any) -> str:
        """Any ledger value as one line: lists joined, maps as "Name: value", nested maps by their words."""
        if isinstance(value, dict):
            if not value:
                return "none"
            return "; ".join(f"{self._label(k)}: {self._inner(v)}" for k, v in value.items())
        if isinstance(value, (list, tuple)):
            return self._items(value)
        return self.scalar(value)

    def _items(self, value: list[Any] | tuple[Any, ...]) -> str:
        """A list: its items by commas, or by semicolons when they are records that hold commas themselves."""
        if not value:
            return "none"
        return ("; " if any(isinstance(v, dict) for v in value) else ", ").join(self._inner(v) for v in value)

    def _label(self, key: Any) -> str:
        text = self.scalar(str(key))
        return text[:1].upper() + text[1:]

    def _inner(self, value: Any) -> str:
        if isinstance(value, dict):
            # A record (an employee, ore by colour): a number or a code by its name ("grey 3", "ship 1-4"), a word
            # as it is, the names of its flags that are set.
            parts = []
            for key, item in value.items():
                if item is True:
                    parts.append(self.key(key).lower())
                elif isinstance(item, bool) or item in (None, 0, ""):
                    continue
                elif isinstance(item, (int, float)) or (isinstance(item, str) and any(c.isdigit() for c in item)):
                    parts.append(f"{self.key(key).lower()} {self.scalar(item)}")
                else:
                    parts.append(self._inner(item))
            return ", ".join(parts) or "—"
        if isinstance(value, (list, tuple)):
            return self._items(value)
        return self.scalar(value)
