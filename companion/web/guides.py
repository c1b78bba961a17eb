"""The guides a phone with the table's token runs (docs/openapi.json): the reed grid's calibration walk-through and
the guided setup of a new game. Their progress reaches every phone on the stream (`calibration`, `setup`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, jsonify, request

from companion.web.body import field, json_body
from companion.web.context import table
from companion.web.errors import BadInput
from companion.web.guard import requires_seat

guides = Blueprint("guides", __name__, url_prefix="/api")

WALK = ("start", "probe", "skip", "back", "redo", "save", "stop")
SETUP = ("start", "placed", "back", "stop")


def _do(data: dict[str, Any], allowed: tuple[str, ...]) -> str:
    do = field(data, "do", str)
    if do not in allowed:
        raise BadInput(f"do: expected one of {', '.join(allowed)}, not {do!r}")
    return do


def _carry_out(command: Callable[[], dict[str, Any]]) -> Response:
    """A guide's answer; what the guide refuses (a step that does not exist, an unknown site) is a 400 that changed
    nothing. (Requests that do not fit the moment raise NotNow: 409, see errors.py.)"""
    try:
        return jsonify(command())
    except ValueError as error:
        raise BadInput(str(error)) from None


@guides.get("/calibration/grid")
def grid() -> Response:
    board = request.args.get("board")
    return _carry_out(lambda: table().guides.grid_status(board))


@guides.post("/calibration/grid")
@requires_seat
def walk() -> Response:
    data = json_body()
    do = _do(data, WALK)
    if do == "start":
        sites = field(data, "sites", list, None)
        if sites is not None and (not sites or not all(isinstance(s, str) for s in sites)):
            raise BadInput("sites: expected a non-empty list of site ids")
        board = field(data, "board", str, None)
        return _carry_out(lambda: table().guides.start_walk(sites, board))
    if do == "probe":
        return _carry_out(table().guides.start_probe)
    site = field(data, "site", str, None)
    return _carry_out(lambda: table().guides.walk_command(do, site))


@guides.get("/setup")
def setup() -> Response:
    return jsonify(table().guides.status())


@guides.post("/setup")
@requires_seat
def guide() -> Response:
    do = _do(json_body(), SETUP)
    if do == "start":
        return _carry_out(table().guides.start_guide)
    return _carry_out(lambda: table().guides.guide_command(do))
