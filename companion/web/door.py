"""The door: what a request may do and how much it may send, decided from its head alone, before a byte of its
body is read. The view a request's path and method reach declares both (guard.requires: who may; body.takes: how
large a body, and whether its work runs in a lane of its own), so the door and the app read one source.

A guest without the token gets a one-line 403 for anything that acts, whatever the body it announces; a phone
with it gets the limit of the view it reaches at this table (no frame path on a table whose camera is no phone);
a request for no view reads no body. The connection closes after a refusal: the rest of the body is never read."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from flask import Flask
from werkzeug.exceptions import HTTPException
from werkzeug.routing import MapAdapter

from companion.web.body import taken
from companion.web.errors import BadInput
from companion.web.guard import access_of, caller
from companion.web.table import Table


@dataclass(frozen=True)
class Admitted:
    """What the request may send: a body of at most `limit` bytes, and the lane its view runs in (None: the pool)."""

    limit: int
    lane: str | None


@dataclass(frozen=True)
class Refused:
    status: int
    message: str


class Door:
    def __init__(self, app: Flask, table: Table) -> None:
        self._app = app
        self._table = table
        self._routes: MapAdapter = app.url_map.bind("table")

    def admit(self, method: str, path: str, headers: Mapping[str, str]) -> Admitted | Refused:
        try:
            endpoint, _ = self._routes.match(path, method)
        except HTTPException:
            return Admitted(0, None)  # no such view: the app says so (404, 405), with no body read
        view = self._app.view_functions.get(str(endpoint))
        if view is None:
            return Admitted(0, None)
        try:
            caller(headers, self._table.seats, access_of(view))
        except BadInput as refused:
            return Refused(refused.status, refused.message)
        limit, lane = taken(view, self._table)
        return Admitted(limit, lane)
