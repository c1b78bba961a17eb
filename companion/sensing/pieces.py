"""The piece registry: which sticker (or colour) stands for which game piece, and the piece's shape and height.

A registry is data (a JSON file). Each physical piece has an entry (its own id); pieces of one kind share a piece
name ("station-storage" for every storage ring) and, being interchangeable, one sticker: a game needs as many sticker
codes as it has kinds, not pieces, and the camera reports kinds at sites (which of three storage rings stands on a
site is nothing a game asks). A kind's pieces share shape, size and sticker. Each kind's sticker has its own size
(`sticker_mm`), chosen to fit the piece's outline with its white margin (`sticker_fits`). Entries without a sticker
are told apart by colour alone, and only where their colour belongs to one piece name (ORBIT's nebula chips); a
colour that several kinds share (ORBIT's station tiles) says nothing, so those pieces are in the box but the camera
does not look for them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, fields
from importlib import resources
from pathlib import Path

import numpy as np

from companion.errors import UserError
from companion.jsonfile import read_json

SHAPES = {"square": 4, "octagon": 8, "ring": 8, "disc": 24}
MARGIN_CELLS = 1  # the white margin printed round a sticker, in the marker's cells (a 16h5 marker is 6 cells wide)
# How riders stand on what carries them: docked beside a base's sticker, side by side, all in view (Trajectory's
# wide planets), or on its middle, one on another, hiding what is under them (ORBIT's ships on planets).
STACKING = ("beside", "on top")
# AprilTag 16h5's codes from the one read most reliably to the least, under WORLD.md's optics: the share of stickers
# not read in `companion bench vision --all-codes` (each mounting gives the registry's kinds codes drawn afresh from
# the whole dictionary), 720p and 1080p webcams, 640 frames and about 14,000 stickers (calibration/README.md, "Codes
# by how well they read"); 8 is put among the weakest, as the first renderer's harsh light found it (a planet
# carrying it was missed 4 times in 9). A registry gives its smallest stickers the strongest codes, and its most
# numerous kinds the next, and leaves the weakest spare.
CODES_BY_STRENGTH = {
    "DICT_APRILTAG_16h5": (
        14,
        23,
        22,
        12,
        19,
        11,
        13,
        27,
        15,
        7,
        6,
        28,
        2,
        16,
        1,
        3,
        21,
        25,
        10,
        4,
        20,
        24,
        8,
        5,
        29,
        0,
        18,
        9,
        17,
        26,
    )
}


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
    sticker_mm: float = 16.0  # the printed marker's side (its margin of MARGIN_CELLS white cells is extra)
    points: bool = False  # the piece carries an arrow along its sticker's top edge that the rules follow

    @property
    def sides(self) -> int:
        return SHAPES[self.shape]

    def outline(self) -> np.ndarray:
        """The footprint's corners (mm) about the piece's centre, its sticker's top along +y: a regular polygon of
        the shape's sides and circumradius with a flat edge square to the sticker (as the pieces are cut)."""
        n = self.sides
        angles = math.pi / n + np.arange(n) * 2 * math.pi / n
        return self.radius * np.column_stack([np.cos(angles), np.sin(angles)])

    def sticker_outline(self) -> np.ndarray:
        """What is stuck on the top face (mm, about the piece's centre): the round label's rim when there is one,
        else the sticker's square with its white margin."""
        centre = np.array([0.0, -self.sticker_offset])
        if self.label_mm:
            t = np.linspace(0, 2 * math.pi, 48, endpoint=False)
            return centre + self.label_mm / 2 * np.column_stack([np.cos(t), np.sin(t)])
        h = self.sticker_mm * (0.5 + MARGIN_CELLS / 6)
        return centre + np.array([(-h, h), (h, h), (h, -h), (-h, -h)])

    def sticker_fits(self) -> bool:
        """Whether the sticker (or its label) lies wholly on the piece's top face (within 0.1 mm), and on a label,
        whether the label's white reaches a cell past the marker's corners (its margin, round as it is)."""
        if self.sticker is None:
            return True
        cell = self.sticker_mm / 6
        if self.label_mm and self.sticker_mm * math.sqrt(2) / 2 + MARGIN_CELLS * cell > self.label_mm / 2 + 0.1:
            return False
        outline = self.outline()
        edges = np.roll(outline, -1, axis=0) - outline
        normals = np.column_stack([edges[:, 1], -edges[:, 0]]) / np.linalg.norm(edges, axis=1)[:, None]
        # A convex polygon counter-clockwise: a point is inside when it is behind every edge's outward normal.
        reach = (self.sticker_outline()[:, None, :] - outline[None, :, :]) * normals[None, :, :]
        return bool(np.all(reach.sum(axis=2) <= 0.1))

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
    # The sides' counter sets, in the order players are named at setup (Orbital Battle's red and blue counters):
    # a piece named `army-red` is the first player's army, whatever that player is called (`seated`).
    seats: tuple[str, ...] = ()

    @property
    def tallest(self) -> float:
        return self.tallest_mm or 2 * max(e.height for e in self.entries)

    def by_sticker(self) -> dict[int, PieceEntry]:
        """Sticker id -> the first entry of the kind that carries it (a kind's pieces are alike)."""
        out: dict[int, PieceEntry] = {}
        for e in self.entries:
            if e.sticker is not None:
                out.setdefault(e.sticker, e)
        return out

    def kind(self, piece: str) -> PieceEntry:
        """The first entry of a piece name: shape, height and sticker of every piece of that kind."""
        for entry in self.entries:
            if entry.piece == piece:
                return entry
        raise KeyError(piece)

    def count(self, piece: str) -> int:
        """How many pieces of this kind the box holds."""
        return sum(1 for e in self.entries if e.piece == piece)

    def sticker_sizes(self) -> tuple[float, float]:
        """The smallest and largest sticker side (mm) of the stickered kinds."""
        sizes = [e.sticker_mm for e in self.entries if e.sticker is not None] or [self.sticker_mm]
        return min(sizes), max(sizes)

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

    def seated(self, players: Sequence[str]) -> dict[str, str]:
        """Each piece name of a side's set -> the layout's name for it at a table of these players: a player named
        for a side takes that side's set (Periorbis's "orange" plays the orange pieces, however the players are
        ordered), and the others take the sets left, in order (`army-red` is `army-` and the first such player's
        name). Empty for a registry without seats, or names that need no change."""
        if not self.seats:
            return {}
        own = [p for p in players if p in self.seats]
        free = [s for s in self.seats if s not in own]
        owner = {p: p for p in own} | dict(zip(free, [p for p in players if p not in own], strict=False))
        out = {}
        for entry in self.entries:
            head, _, seat = entry.piece.rpartition("-")
            if head and seat in owner and owner[seat] != seat:
                out[entry.piece] = f"{head}-{owner[seat]}"
        return out

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
    try:
        sticker_mm, tallest = float(data.get("sticker_mm", 16.0)), float(data.get("tallest_stack_mm", 0.0))
    except (TypeError, ValueError):
        raise UserError(f"{where}: sticker_mm and tallest_stack_mm must be numbers of mm") from None
    if sticker_mm <= 0 or tallest < 0:
        raise UserError(f"{where}: sticker_mm must be above 0 and tallest_stack_mm 0 or more")
    seats = data.get("seats", [])
    if not isinstance(seats, list) or not all(isinstance(v, str) and v for v in seats) or len(set(seats)) < len(seats):
        raise UserError(
            f"{where}: seats: expected a list of different names (the sides' counter sets, in the order "
            "players are named)"
        )
    entries = []
    seen_ids: set[str] = set()
    kinds: dict[str, tuple[int, PieceEntry]] = {}  # piece name -> (index, first entry)
    sticker_kinds: dict[int, str] = {}
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
                sticker_mm=float(raw.get("sticker_mm", sticker_mm)),
                points=raw.get("points", False),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise UserError(f"{where}: pieces[{index}]: bad or missing field {error}") from None
        at = f"{where}: pieces[{index}]"
        if not isinstance(entry.points, bool):
            raise UserError(f"{at}.points: expected true or false, not {entry.points!r}")
        if entry.shape not in SHAPES:
            raise UserError(f"{at}.shape: {entry.shape!r} is not one of {', '.join(SHAPES)}")
        if entry.id in seen_ids:
            raise UserError(f"{at}.id: {entry.id!r} appears twice")
        if entry.sticker_mm <= 0:
            raise UserError(f"{at}.sticker_mm: must be above 0, not {entry.sticker_mm:g}")
        if entry.sticker is not None and not 0 <= entry.sticker < ids:
            raise UserError(f"{at}.sticker: {dictionary} has ids 0 to {ids - 1}, not {entry.sticker}")
        if entry.sticker is not None and sticker_kinds.setdefault(entry.sticker, entry.piece) != entry.piece:
            raise UserError(
                f"{at}.sticker: sticker {entry.sticker} is given to {sticker_kinds[entry.sticker]!r} "
                f"and {entry.piece!r} (one sticker stands for one kind of piece)"
            )
        first_index, first = kinds.setdefault(entry.piece, (index, entry))
        unlike = [
            f.name
            for f in fields(PieceEntry)
            if f.name not in ("id", "piece") and getattr(entry, f.name) != getattr(first, f.name)
        ]
        if unlike:
            raise UserError(
                f"{at}: a {entry.piece!r} unlike pieces[{first_index}] in {', '.join(unlike)} "
                f"(pieces of one kind are interchangeable: give it another piece name)"
            )
        if not entry.sticker_fits():
            raise UserError(
                f"{at}: its {entry.sticker_mm:g} mm sticker does not fit on its {entry.shape} of "
                f"radius {entry.radius:g} mm (sticker_offset {entry.sticker_offset:g} mm)"
            )
        seen_ids.add(entry.id)
        entries.append(entry)
    if not entries:
        raise UserError(f"{where}: pieces: the registry lists no pieces")
    return Registry(str(data.get("game", "")), dictionary, sticker_mm, tuple(entries), stacking, tallest, tuple(seats))
