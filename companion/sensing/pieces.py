"""The piece registry: which sticker (or colour) stands for which game piece, and the piece's shape and height.

A registry is data (a JSON file). Pieces of one kind share a piece name ("infestor-metal" three times), so several
sticker ids map to one piece name; each physical piece keeps its own entry id. Entries without a sticker are told
apart by colour alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from companion.errors import UserError
from companion.jsonfile import read_json

SHAPES = {"square": 4, "octagon": 8, "ring": 8, "disc": 24}


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

    def by_sticker(self) -> dict[int, PieceEntry]:
        return {e.sticker: e for e in self.entries if e.sticker is not None}

    def entry(self, entry_id: str) -> PieceEntry:
        for entry in self.entries:
            if entry.id == entry_id:
                return entry
        raise KeyError(entry_id)

    def unmarked(self) -> tuple[PieceEntry, ...]:
        return tuple(e for e in self.entries if e.sticker is None)


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


def _parse(data: object, where: str) -> Registry:
    if not isinstance(data, dict) or data.get("format") != "orrery-piece-registry":
        raise UserError(f"{where}: not a piece registry (format must be 'orrery-piece-registry')")
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
            )
        except (KeyError, TypeError, ValueError) as error:
            raise UserError(f"{where}: pieces[{index}]: bad or missing field {error}") from None
        if entry.shape not in SHAPES:
            raise UserError(f"{where}: pieces[{index}].shape: {entry.shape!r} is not one of {', '.join(SHAPES)}")
        if entry.id in seen_ids:
            raise UserError(f"{where}: pieces[{index}].id: {entry.id!r} appears twice")
        if entry.sticker is not None and entry.sticker in seen_stickers:
            raise UserError(f"{where}: pieces[{index}].sticker: sticker {entry.sticker} is given to two pieces")
        seen_ids.add(entry.id)
        if entry.sticker is not None:
            seen_stickers.add(entry.sticker)
        entries.append(entry)
    if not entries:
        raise UserError(f"{where}: pieces: the registry lists no pieces")
    return Registry(
        game=str(data.get("game", "")),
        dictionary=str(data.get("sticker_dictionary", "DICT_APRILTAG_16h5")),
        sticker_mm=float(data.get("sticker_mm", 16.0)),
        entries=tuple(entries),
    )
