"""The page itself: one HTML file, its script, style, manifest and service worker, all served from the Pi."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, send_from_directory

STATIC = Path(__file__).parent / "static"
pages = Blueprint("pages", __name__)


def _file(name: str, mimetype: str | None = None) -> Response:
    # no-cache: the browser revalidates each file, so an updated companion serves its new page at once (the
    # service worker keeps its own copy for when the companion is away).
    response = send_from_directory(STATIC, name, mimetype=mimetype, max_age=0)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


@pages.get("/")
def index() -> Response:
    return _file("index.html", "text/html")


@pages.get("/sw.js")
def service_worker() -> Response:
    return _file("sw.js", "text/javascript")  # from the root, so that its scope covers the whole page


@pages.get("/manifest.webmanifest")
def manifest() -> Response:
    return _file("manifest.webmanifest", "application/manifest+json")


@pages.get("/static/<path:name>")
def static(name: str) -> Response:
    return _file(name)
