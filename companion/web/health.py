"""GET /healthz: is the companion serving, which game, what the sensors say and why one is lost (JSON, for people
and monitors)."""

from __future__ import annotations

import functools
from importlib.metadata import PackageNotFoundError, version

from flask import Blueprint, Response, jsonify

from companion.web.context import table
from companion.web.trust import https_port

health = Blueprint("health", __name__)


@functools.cache  # read once: the installed package's metadata is files on disk, and a monitor asks often
def companion_version() -> str:
    try:
        return version("orrery-companion")
    except PackageNotFoundError:
        return "unknown"


@health.get("/healthz")
def healthz() -> Response:
    current = table()
    session = current.session
    phase = session.game.phase(session.state)
    failure = session.store.failure
    sensors = current.sensors()
    return jsonify(
        ok=failure is None and not sensors.get("stopped"),  # (a thread of the table's that stopped: never should)
        cannot_save=None if failure is None else f"the table cannot save: moves are paused ({failure})",
        version=companion_version(),
        game={
            "name": session.record.game,
            "id": session.record.id,
            "status": session.record.status,
            "phase": phase.name,
            "actor": phase.actor,
        },
        sensors=sensors,
        streams=current.hub.streams,
        https_port=https_port(),
    )
