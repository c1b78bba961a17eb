"""The page itself: one HTML file, its script, style, manifest and service worker, all served from the Pi (from
memory on the server's loop, shell.py; these views answer the app on its own)."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, send_from_directory

STATIC = Path(__file__).parent / "static"
NAMED = {  # the files served at paths of their own: (the file in STATIC, its type)
    "/": ("index.html", "text/html"),
    "/sw.js": ("sw.js", "text/javascript"),  # from the root, so that its scope covers the whole page
    "/manifest.webmanifest": ("manifest.webmanifest", "application/manifest+json"),
}
pages = Blueprint("pages", __name__)


def page_headers() -> dict[str, str]:
    # no-cache: the browser revalidates each file, so an updated companion serves its new page at once (the
    # service worker keeps its own copy for when the companion is away).
    return {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}


def _file(name: str, mimetype: str | None = None) -> Response:
    response = send_from_directory(STATIC, name, mimetype=mimetype, max_age=0)
    response.headers.update(page_headers())
    return response


@pages.get("/")
def index() -> Response:
    return _file(*NAMED["/"])


@pages.get("/sw.js")
def service_worker() -> Response:
    return _file(*NAMED["/sw.js"])


@pages.get("/manifest.webmanifest")
def manifest() -> Response:
    return _file(*NAMED["/manifest.webmanifest"])


@pages.get("/static/<path:name>")
def static(name: str) -> Response:
    return _file(name)
