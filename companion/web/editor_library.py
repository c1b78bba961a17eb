"""The table's library on the page: its data sets listed, shared as one file and added from one (the host's
action: it needs the table token)."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from companion.rules import SetupError
from companion.table import library
from companion.web.body import UPLOAD_BYTES, parse_json, takes
from companion.web.context import table
from companion.web.errors import BadInput
from companion.web.guard import requires_host

LIBRARY_DEPTH = 24  # a library file nests its sets' own files: deeper than a request, never without bound
shelf = Blueprint("library", __name__, url_prefix="/api/library")


@shelf.get("")
def listed() -> Response:
    return jsonify(sets=library.listing(table().datasets))


@shelf.get("/export")
def export() -> Response:
    """A library file of the sets named (`set=GAME/OPTION/NAME`, repeated), or of every set, to download."""
    chosen = []
    for spec in request.args.getlist("set"):
        parts = spec.split("/")
        if len(parts) != 3:
            raise BadInput(f"set: {spec[:60]!r} is not GAME/OPTION/NAME (like orbit/board/my-copy)")
        chosen.append((parts[0], parts[1], parts[2]))
    try:
        bundle = library.export(table().datasets, chosen or None)
    except SetupError as error:
        raise BadInput(str(error), 404) from None
    response = jsonify(bundle)
    name = chosen[0][2] if len(chosen) == 1 else "library"
    response.headers["Content-Disposition"] = f'attachment; filename="orrery-{name}.json"'
    return response


@shelf.post("/import")
@requires_host
@takes(UPLOAD_BYTES, lane="check")
def imported() -> tuple[Response, int]:
    """Every set of the library file in the body, each checked by its game first; one wrong set adds none. A file of
    one set may be added under another name (`name`); a set the table holds already is replaced only when the
    request says `replace=yes` (else 409, nothing added)."""
    source = "".join(ch for ch in request.args.get("file", "library file")[:80] if ch.isprintable()) or "library file"
    name = request.args.get("name")
    replace = request.args.get("replace", "no")
    if replace not in ("yes", "no"):
        raise BadInput(f"replace: {replace[:20]!r} is neither yes nor no")
    bundle = parse_json(request.get_data(), LIBRARY_DEPTH, source)
    try:
        added = library.import_library(table().datasets, bundle, source, name, replace == "yes")
    except library.SetExists as error:
        raise BadInput(str(error), 409) from None
    except SetupError as error:
        raise BadInput(str(error)) from None
    return jsonify(
        added=[{"game": g, "option": o, "name": n} for g, o, n in added], sets=library.listing(table().datasets)
    ), 201
