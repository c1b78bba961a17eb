"""The table and settings of the app serving the current request (kept on app.extensions, never in globals)."""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app

from companion.web.table import Table

KEY = "orrery"


@dataclass(frozen=True)
class WebSettings:
    heartbeat: float = 15.0  # seconds between keep-alive comments on an idle stream
    retry_ms: int = 2000  # how soon a browser reconnects a dropped stream


@dataclass(frozen=True)
class Extension:
    table: Table
    settings: WebSettings


def table() -> Table:
    return current_app.extensions[KEY].table


def settings() -> WebSettings:
    return current_app.extensions[KEY].settings
