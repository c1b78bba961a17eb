"""The piece registry: which sticker (or colour) stands for which game piece, and the piece's shape and height.

A registry is data (a JSON file). Pieces of one kind share a piece name ("infestor-metal" three times), so several
sticker ids map to one piece name; each physical piece keeps its own entry id. Entries without a sticker are told
apart by colour alone, and only where their colour belongs to one piece name (ORBIT's nebula chips); a colour that
several kinds share (ORBIT's station tiles) says nothing, so those pieces are in the box but the camera does not
look for them.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from companion.errors import UserError
from companion.jsonfile import read_json

SHAPES = {"square": 4, "octagon": 8, "ring": 8, "disc": 24}
# How riders stand on what carries them: docked beside a base's sticker, side by side, all in view (Trajectory's
# wide planets), or on its middle, one on another, hiding what is under them (ORBIT's ships on planets).
STACKING = ("beside", "on top")


@dataclass(frozen=True)
class PieceEntry:
    """One physical piece. `radius` is the footprint's circumradius (mm); `layer` orders a stack (0 at the bottom)."""

    id: str
    piece: str
    colour: str
    height: float
    sticker: int | None
    shape: str = "square"
    radius: float = 12.0
    sticker_offset: float = 0.0
    layer: int = 3
    label_mm: float = 0.0  # a round white label of this diameter around the sticker (0: the sticker's own margin)
    points: bool = False  # the piece carries an arrow along its sticker's top edge that the rules follow

    @property
    def sides(self) -> int:
        return SHAPES[self.shape]

    @property
    def is_base(self) -> bool:
        """Bases (planets, stations) carry other pieces on top of them."""
        return self.layer <= 1


@dataclass(frozen=True)
class Registry:
    game: str
    dictionary: str
    sticker_mm: float
    entries: tuple[PieceEntry, ...]
    stacking: str = "beside"
    tallest_mm: float = 0.0  # the top of the tallest stack above the board; 0: two of the tallest piece

    @property
    def tallest(self) -> float:
        return self.tallest_mm or 2 * max(e.height for e in self.entries)

    def by_sticker(self) -> dict[int, PieceEntry]:
        return {e.sticker: e for e in self.entries if e.sticker is not None}

    def entry(self, entry_id: str) -> PieceEntry:
        for entry in self.entries:
            if entry.id == entry_id:
                return entry
        raise KeyError(entry_id)

    def unmarked(self) -> tuple[PieceEntry, ...]:
        return tuple(e for e in self.entries if e.sticker is None)

    def colour_kinds(self) -> dict[str, frozenset[str]]:
        """Colour -> the piece names of the unmarked entries of that colour."""
        kinds: dict[str, set[str]] = {}
        for entry in self.unmarked():
            kinds.setdefault(entry.colour, set()).add(entry.piece)
        return {colour: frozenset(names) for colour, names in kinds.items()}

    def by_colour(self, colours: Collection[str]) -> dict[str, list[PieceEntry]]:
        """The unmarked entries a camera with ranges for `colours` finds, per colour: only colours that belong to one
        piece name (a blob of a shared colour could be any of its kinds)."""
        kinds = self.colour_kinds()
        groups: dict[str, list[PieceEntry]] = {}
        for entry in self.unmarked():
            if entry.colour in colours and len(kinds[entry.colour]) == 1:
                groups.setdefault(entry.colour, []).append(entry)
        return groups

    def identifiable(self, colours: Collection[str]) -> frozenset[str]:
        """The piece names a camera tells apart: those with stickers, and those found by one of `colours`."""
        stickered = {e.piece for e in self.entries if e.sticker is not None}
        return frozenset(stickered | {e.piece for group in self.by_colour(colours).values() for e in group})


def has_registry(game: str) -> bool:
    """True if the companion ships a piece registry (stickers for the camera) for this game."""
    return resources.files("companion.sensing").joinpath(f"pieces_{game}.json").is_file()


def default_registry(game: str) -> Registry:
    """The registry shipped for a game's box of pieces."""
    resource = resources.files("companion.sensing").joinpath(f"pieces_{game}.json")
    if not resource.is_file():
        raise UserError(f"no default piece registry for game {game!r}")
    return _parse(json.loads(resource.read_text()), f"pieces_{game}.json")


def load_registry(path: str | Path) -> Registry:
    return _parse(read_json(path, UserError), str(path))


def dictionary_size(name: str) -> int | None:
    """How many marker ids an OpenCV dictionary (DICT_APRILTAG_16h5) holds; None for a name OpenCV does not know."""
    import cv2  # heavy: only when a registry is read

    if not name.startswith("DICT_") or not hasattr(cv2.aruco, name):
        return None
    return int(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name)).bytesList.shape[0])


def _parse(data: object, where: str) -> Registry:
    if not isinstance(data, dict) or data.get("format") != "orrery-piece-registry":
        raise UserError(f"{where}: not a piece registry (format must be 'orrery-piece-registry')")
    dictionary = str(data.get("sticker_dictionary", "DICT_APRILTAG_16h5"))
    ids = dictionary_size(dictionary)
    if ids is None:
        raise UserError(f"{where}: sticker_dictionary: {dictionary!r} is not an OpenCV marker dictionary")
    stacking = data.get("stacking", "beside")
    if stacking not in STACKING:
        raise UserError(f"{where}: stacking: {stacking!r} is not one of {', '.join(map(repr, STACKING))}")
    entries = []
    seen_ids: set[str] = set()
    seen_stickers: set[int] = set()
    for index, raw in enumerate(data.get("pieces", [])):
        try:
            entry = PieceEntry(
                id=str(raw["id"]),
                piece=str(raw["piece"]),
                colour=str(raw["colour"]),
                height=float(raw["height"]),
                sticker=None if raw.get("sticker") is None else int(raw["sticker"]),
                shape=str(raw.get("shape", "square")),
                radius=float(raw.get("radius", 12.0)),
                sticker_offset=float(raw.get("sticker_offset", 0.0)),
                layer=int(raw.get("layer", 3)),
                label_mm=float(raw.get("label_mm", 0.0)),
                points=raw.get("points", False),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise UserError(f"{where}: pieces[{index}]: bad or missing field {error}") from None
        if not isinstance(entry.points, bool):
            raise UserError(f"{where}: pieces[{index}].points: expected true or false, not {entry.points!r}")
        if entry.shape not in SHAPES:
            raise UserError(f"{where}: pieces[{index}].shape: {entry.shape!r} is not one of {', '.join(SHAPES)}")
        if entry.id in seen_ids:
            raise UserError(f"{where}: pieces[{index}].id: {entry.id!r} appears twice")
        if entry.sticker is not None and not 0 <= entry.sticker < ids:
            raise UserError(f"{where}: pieces[{index}].sticker: {dictionary} has ids 0 to {ids - 1}, "
                            f"not {entry.sticker}")
        if entry.sticker is not None and entry.sticker in seen_stickers:
            raise UserError(f"{where}: pieces[{index}].sticker: sticker {entry.sticker} is given to two pieces")
        seen_ids.add(entry.id)
        if entry.sticker is not None:
            seen_stickers.add(entry.sticker)
        entries.append(entry)
    if not entries:
        raise UserError(f"{where}: pieces: the registry lists no pieces")
    try:
        sticker_mm, tallest = float(data.get("sticker_mm", 16.0)), float(data.get("tallest_stack_mm", 0.0))
    except (TypeError, ValueError):
        raise UserError(f"{where}: sticker_mm and tallest_stack_mm must be numbers of mm") from None
    if sticker_mm <= 0 or tallest < 0:
        raise UserError(f"{where}: sticker_mm must be above 0 and tallest_stack_mm 0 or more")
    return Registry(str(data.get("game", "")), dictionary, sticker_mm, tuple(entries), stacking, tallest)
