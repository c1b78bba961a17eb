"""The page itself: one HTML file, its script, style, manifest and service worker, all served from the Pi."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, send_from_directory

STATIC = Path(__file__).parent / "static"
pages = Blueprint("pages", __name__)


def _file(name: str, mimetype: str | None = None, cache: int = 0) -> Response:
    response = send_from_directory(STATIC, name, mimetype=mimetype, max_age=cache)
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


@pages.get("/")
def index() -> Response:
    return _file("index.html", "text/html")


@pages.get("/sw.js")
def service_worker() -> Response:
    # Served from the root so that its scope covers the whole page; never cached, so an update takes at once.
    response = _file("sw.js", "text/javascript")
    response.headers["Cache-Control"] = "no-cache"
    return response


@pages.get("/manifest.webmanifest")
def manifest() -> Response:
    return _file("manifest.webmanifest", "application/manifest+json")


@pages.get("/static/<path:name>")
def static(name: str) -> Response:
    return _file(name)
