"""The board editor: its page, the board to start from, the checks as a person edits, a photo flattened, and the
board saved as one of the table's data sets (the host's action: it needs the table token)."""

from __future__ import annotations

import math
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, jsonify, request

from companion.boards import Board, BoardFileError
from companion.boards.files import board_from_json, board_to_json
from companion.boards.markers import with_corner_markers
from companion.rules import SetupError, load
from companion.table import library
from companion.table.datasets import quoted
from companion.table.game_board import BOARD_OPTIONS
from companion.web.body import UPLOAD_BYTES, field, json_body, takes
from companion.web.context import table
from companion.web.editor_image import flatten, parse_corners
from companion.web.errors import BadInput
from companion.web.guard import requires_host, requires_phone
from companion.web.pages import _file
from companion.web.pictures import PictureError

editor = Blueprint("editor", __name__)
OWN = "own"  # the board a game brings when it brings one only (ORBIT's sides are "front" and "back")
EMPTY = "empty"  # a board of the game's size with no sites yet, to lay a board out from scratch
MOVED_MM = 1.0  # a site further than this from where the game's own board has it has moved


@editor.get("/editor")
def page() -> Response:
    return _file("editor.html", "text/html")


def _game(value: Any) -> str:
    if value not in BOARD_OPTIONS:
        raise BadInput(
            f"game: {str(value)[:40]!r} takes no board of its own (the editor makes boards for: "
            f"{', '.join(BOARD_OPTIONS)})"
        )
    return value


def _sides(game: str) -> tuple[str, ...]:
    """The boards a game brings, by the value its board option takes (the first is the one edits are compared
    against)."""
    return tuple(load(game).board_sides) or (OWN,)


def _built_in(game: str, side: str) -> Board:
    return load(game).own_board("" if side == OWN else side)


def _starts(game: str, sets: Any) -> list[str]:
    empty = [] if load(game).fixed_sites else [EMPTY]  # a board of fixed sites (hexes, spaces) starts from its own
    return [*_sides(game), *empty, *sets.names(game, BOARD_OPTIONS[game])]


@editor.get("/api/editor/board")
def start() -> Response:
    """A board to start from: one of the game's own ("front") or one of the table's data sets, with the game's own
    first board to compare edits against."""
    game = _game(request.args.get("game", next(iter(BOARD_OPTIONS))))  # the page names it; else the first
    option = BOARD_OPTIONS[game]
    name = request.args.get("start", _sides(game)[0])
    sets = table().datasets
    if name == EMPTY and not load(game).fixed_sites:
        own = _built_in(game, _sides(game)[0])
        board = Board(own.name, own.width, own.height, ())
    elif name in _sides(game):
        board = _built_in(game, name)
    elif name in sets.names(game, option):
        try:
            board = board_from_json(library.export(sets, [(game, option, name)])["sets"][0]["data"], name)
        except (BoardFileError, SetupError) as error:
            raise BadInput(str(error)) from None
    else:
        offered = ", ".join(_starts(game, sets))
        raise BadInput(f"start: {quoted(name)} is no board of {game} at this table (there are: {offered})", 404)
    return jsonify(
        game=game,
        start=name,
        board=board_to_json(board),
        starts=_starts(game, sets),
        reference=board_to_json(_built_in(game, _sides(game)[0])),
    )


def _problems(game: str, data: Any) -> list[str]:
    """What keeps the game from being played on the board: the board file's checks, then the game's own (each site
    said by the name the person gave it)."""
    try:
        board = board_from_json(data, "board")
    except BoardFileError as error:
        return [str(error)]
    option = BOARD_OPTIONS[game]
    found = trial(game, option, data, "board")
    return [
        _named(
            board,
            text.replace(f"options.{option} (board): ", "").replace(f"options.{option}: ", "").removeprefix("board: "),
        )
        for text in found
    ]


def _named(board: Board, text: str) -> str:
    """The rules name sites by id; a site the person named ("spot 7", "north gate") is said by its name."""
    names = {site.id: site.label for site in board.sites if site.label and site.label != site.id}
    if not names:
        return text
    ids = "|".join(re.escape(i) for i in sorted(names, key=len, reverse=True))
    pattern = re.compile(rf"(?<![\w-])({ids})(?![\w-])")
    return pattern.sub(lambda match: names[match.group(1)], text)


def trial(game: str, option: str, data: Any, label: str, read: Callable[[str], Any] | None = None) -> list[str]:
    """The first problem (one line, the file called `label`) of setting the game up with `data` as its option, after
    `read` (the file's own reader, whose errors are plainer) if given; [] when there is none."""
    with tempfile.TemporaryDirectory(prefix="orrery-editing-") as folder:
        path = Path(folder) / label
        library.write_file(path, data)
        try:
            if read is not None:
                read(str(path))
            library.check(game, option, path, label)
        except (SetupError, BoardFileError) as error:
            return [str(error).replace(f"{path}: ", "").replace(str(path), label)]
    return []


def board_diff(board: Board, reference: Board) -> dict[str, list[str]]:
    """Sites added, moved and removed against the game's own board, links added and removed, and orbits (lines of
    sites in order: Dakalio's lines, Orbital Battle's rings) added and removed."""
    ours = {s.id: s for s in board.sites}
    theirs = {s.id: s for s in reference.sites}
    moved = [sid for sid in ours if sid in theirs
             and math.hypot(ours[sid].x - theirs[sid].x, ours[sid].y - theirs[sid].y) > MOVED_MM]  # fmt: skip
    links = {(lk.a, lk.b, lk.kind) for lk in board.links}
    old_links = {(lk.a, lk.b, lk.kind) for lk in reference.links}
    our_lines, old_lines = set(board.orbits.values()), set(reference.orbits.values())
    return {
        "added": [sid for sid in ours if sid not in theirs],
        "moved": moved,
        "removed": [sid for sid in theirs if sid not in ours],
        "links_added": [f"{a}-{b}" for a, b, _ in sorted(links - old_links)],
        "links_removed": [f"{a}-{b}" for a, b, _ in sorted(old_links - links)],
        "orbits_added": sorted(name for name, line in board.orbits.items() if line not in old_lines),
        "orbits_removed": sorted(name for name, line in reference.orbits.items() if line not in our_lines),
    }


@editor.post("/api/editor/check")
@requires_phone
@takes(UPLOAD_BYTES, lane="check")
def check() -> Response:
    """The board's problems as the game sees them (none: it can be played) and its changes from the default."""
    data = json_body()
    game = _game(field(data, "game", str))
    board = field(data, "board", dict)
    problems = _problems(game, board)
    diff = None
    if not problems:
        diff = board_diff(board_from_json(board), _built_in(game, _sides(game)[0]))
    return jsonify(problems=problems, diff=diff)


@editor.post("/api/editor/save")
@requires_host
@takes(UPLOAD_BYTES, lane="check")
def save() -> tuple[Response, int]:
    data = json_body()
    game = _game(field(data, "game", str))
    name, board = field(data, "name", str), field(data, "board", dict)
    option = BOARD_OPTIONS[game]
    problems = _problems(game, board)
    if problems:
        raise BadInput(problems[0])
    # The camera finds a board by its corner markers: a copy without them (laid out from an empty board, or over a
    # photo of another size) gets the game's own, placed at its corners as on the game's own board.
    marked = with_corner_markers(board_from_json(board), _built_in(game, _sides(game)[0]))
    return keep(game, option, name, board_to_json(marked), field(data, "replace", bool, False))


def save_checked(game: str, option: str, key: str, problems: Callable[[Any], list[str]]) -> tuple[Response, int]:
    """The request's `name` and its data under `key` (an object), kept as a named set if `problems` finds none."""
    body = json_body()
    name, data = field(body, "name", str), field(body, key, dict)
    found = problems(data)
    if found:
        raise BadInput(found[0])
    return keep(game, option, name, data, field(body, "replace", bool, False))


def keep(game: str, option: str, name: str, data: Any, replace: bool) -> tuple[Response, int]:
    """Save checked data as a named set: a new version of it (the games played on an earlier one keep theirs). A set
    the table holds already under that name is replaced only when the request says `replace` (else 409, nothing
    kept: the page asks)."""
    try:
        library.save(table().datasets, game, option, name, data, replace)
    except library.SetExists as error:
        raise BadInput(str(error), 409) from None
    except SetupError as error:
        raise BadInput(str(error)) from None
    return jsonify(game=game, option=option, name=name, sets=table().datasets.names(game, option)), 201


@editor.post("/api/editor/flatten")
@requires_phone
@takes(UPLOAD_BYTES, lane="picture")
def flattened() -> Response:
    """The board's part of a photo (the body: a JPEG or PNG), seen from above, given its four corners."""
    try:
        corners = parse_corners(request.args.get("corners", ""))
        width, height = float(request.args.get("width", "")), float(request.args.get("height", ""))
        picture = flatten(request.get_data(), corners, width, height)
    except ValueError as error:
        message = str(error) if isinstance(error, PictureError) else "width and height: numbers of millimetres"
        raise BadInput(message) from None
    response = Response(picture, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    return response


@editor.get("/api/editor/solar/layout")
def solar_layout() -> Response:
    """Orbital Battle's solar map laid out afresh: `radius` rings of hexes `hex_mm` from centre to corner, with
    the planets' orbits on `rings` (seven ring numbers) and each planet on its usual start hex."""
    from companion.boards.solar_map import solar_board

    try:
        radius = int(request.args.get("radius", "8"))
        rings = tuple(int(part) for part in request.args.get("rings", "2,3,4,5,6,7,8").split(","))
        hex_mm = float(request.args.get("hex_mm", "16"))
    except ValueError:
        raise BadInput(
            "radius, rings and hex_mm: whole numbers (rings: seven, comma-separated) and millimetres"
        ) from None
    if not 7 <= radius <= 8:
        raise BadInput(f"radius: {radius} rings; the game's seven orbits and the 16 x 16 reed grid need 7 or 8")
    if len(rings) != 7 or list(rings) != sorted(set(rings)) or rings[0] < 1 or rings[-1] > radius:
        raise BadInput(f"rings: seven orbits on different rings from 1 to {radius}, inner to outer")
    if not 5 <= hex_mm <= 40:
        raise BadInput(f"hex_mm: {hex_mm:g} mm from a hex's centre to its corner; 5 to 40 mm")
    return jsonify(board=board_to_json(solar_board(rings, radius, hex_mm)))
