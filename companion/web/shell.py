"""The page's own files (the page at /, its service worker, manifest and /static/*), read once when the server
starts and answered from memory on the server's loop: a phone's look at the page reads no file, runs no Flask and
never waits for the worker pool that the API's requests share (which guests with the token may keep busy). The
headers are the app's (pages.py): no-cache, so that the browser revalidates, and an ETag that answers 304."""

from __future__ import annotations

import hashlib
import mimetypes
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web
from werkzeug.utils import get_content_type

from companion.web.pages import NAMED, STATIC, page_headers


@dataclass(frozen=True)
class Kept:
    body: bytes
    headers: dict[str, str]


class Shell:
    """The files of `folder`, by the path a browser asks for."""

    def __init__(self, folder: Path = STATIC) -> None:
        routes = {f"/static/{path.name}": (path.name, None) for path in folder.iterdir() if path.is_file()}
        routes.update({path: (name, kind) for path, (name, kind) in NAMED.items()})
        self._kept = {path: _keep(folder / name, kind) for path, (name, kind) in routes.items()}

    def answer(self, request: web.BaseRequest) -> web.Response | None:
        """The file a GET asks for (304 when the browser holds it already), or None: the app answers."""
        kept = self._kept.get(request.path) if request.method == "GET" and not request.body_exists else None
        if kept is None:
            return None
        held = {tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")}
        if kept.headers["ETag"] in held:
            return web.Response(status=304, headers={k: v for k, v in kept.headers.items() if k != "Content-Type"})
        return web.Response(body=kept.body, headers=kept.headers)


def _keep(path: Path, kind: str | None) -> Kept:
    body = path.read_bytes()
    kind = kind or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    etag = f'"{hashlib.sha256(body).hexdigest()[:20]}"'
    return Kept(body, {"Content-Type": get_content_type(kind, "utf-8"), "ETag": etag, **page_headers()})
