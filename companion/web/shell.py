"""The page's own files (the page at /, its service worker, manifest and /static/*), read once when the server
starts and answered from memory on the server's loop: a phone's look at the page reads no file, runs no Flask and
never waits for the worker pool that the API's requests share (which guests with the token may keep busy). The
headers are the app's (pages.py): no-cache, so that the browser revalidates, and an ETag that answers 304. Each
file is also kept gzipped, for the browsers that take it (all do): the first load over a Pi's own Wi-Fi is a
quarter of its size."""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web
from werkzeug.http import parse_accept_header, parse_etags, unquote_etag
from werkzeug.utils import get_content_type

from companion.web.pages import NAMED, STATIC, page_headers


@dataclass(frozen=True)
class Kept:
    body: bytes
    headers: dict[str, str]


@dataclass(frozen=True)
class File:
    plain: Kept
    gzipped: Kept | None  # None where gzip would not make it smaller


class Shell:
    """The files of `folder`, by the path a browser asks for."""

    def __init__(self, folder: Path = STATIC) -> None:
        routes = {f"/static/{path.name}": (path.name, None) for path in folder.iterdir() if path.is_file()}
        routes.update({path: (name, kind) for path, (name, kind) in NAMED.items()})
        self._kept = {path: _keep(folder / name, kind) for path, (name, kind) in routes.items()}

    def answer(self, request: web.BaseRequest) -> web.Response | None:
        """The file a GET asks for (304 when the browser holds it already), or None: the app answers."""
        file = self._kept.get(request.path) if request.method == "GET" and not request.body_exists else None
        if file is None:
            return None
        # werkzeug's parsers: q-values, wildcards, weak and quoted tags as RFC 9110 has them.
        takes_gzip = parse_accept_header(request.headers.get("Accept-Encoding"))["gzip"] > 0
        kept = file.gzipped if file.gzipped and takes_gzip else file.plain
        if parse_etags(request.headers.get("If-None-Match")).contains_weak(unquote_etag(kept.headers["ETag"])[0]):
            skip = ("Content-Type", "Content-Encoding")
            return web.Response(status=304, headers={k: v for k, v in kept.headers.items() if k not in skip})
        return web.Response(body=kept.body, headers=kept.headers)


def _keep(path: Path, kind: str | None) -> File:
    body = path.read_bytes()
    kind = kind or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    tag = hashlib.sha256(body).hexdigest()[:20]
    # Vary: caches between the Pi and a phone (none on a table's Wi-Fi, but a proxy may be) keep the two apart.
    headers = {"Content-Type": get_content_type(kind, "utf-8"), "Vary": "Accept-Encoding", **page_headers()}
    plain = Kept(body, {**headers, "ETag": f'"{tag}"'})
    packed = gzip.compress(body, 9, mtime=0)
    if len(packed) >= len(body):
        return File(plain, None)
    return File(plain, Kept(packed, {**headers, "ETag": f'"{tag}-gz"', "Content-Encoding": "gzip"}))
