"""The Flask app behind the event loop: a request admitted at the door (door.py: who may, how large a body) has its
body read within that limit and its deadline, and is handed to a thread of a small pool, or, when its view's work is
heavy (a board's game set up, a picture decoded), to a lane of its own: one worker and a short queue, so that
heavy work never takes the threads that serve the page, and a full lane refuses at once, before reading the body.
The app's whole answer comes back to the loop to be written. Every answer the app gives is small (the page's
files, JSON, a QR code, a camera snapshot), so it is read whole; the one long answer, the stream, never reaches the
app (events.py)."""

from __future__ import annotations

import asyncio
import io
import sys
import threading
from collections.abc import Iterable
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote_to_bytes

from aiohttp import web
from flask import Flask
from multidict import CIMultiDict

from companion.web.door import Door, Refused

if TYPE_CHECKING:
    from companion.web.server import Limits

LANE_QUEUE = 1  # requests that may wait for a lane's worker beside the one it runs
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "upgrade"}


def refuse(message: str, status: int = 400, close: bool = False) -> web.Response:
    """A one-line JSON error, as the app gives its own (errors.py); with `close`, the connection ends after it (the
    rest of a refused body is not waited for)."""
    response = web.json_response({"error": message}, status=status)
    if close:
        response.force_close()
    return response


class Lane:
    """One worker for one kind of heavy work, and room for LANE_QUEUE more to wait; `enter` says whether there is
    room now (the loop asks before reading the body, and `leave` when the answer is back)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.pool = ThreadPoolExecutor(1, thread_name_prefix=f"web-{name}")
        self._lock = threading.Lock()
        self._inside = 0

    def enter(self) -> bool:
        with self._lock:
            if self._inside > LANE_QUEUE:
                return False
            self._inside += 1
            return True

    def leave(self) -> None:
        with self._lock:
            self._inside -= 1

    def shutdown(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


async def read_body(request: web.BaseRequest, limit: int, limits: Limits) -> bytes | web.Response:
    """The whole body, or a refusal: larger than the limit (said before a byte of it is read when the request
    declares its length), or not all there within the deadline."""
    if request.content_length is not None and request.content_length > limit:
        return refuse(f"the request body is {request.content_length} bytes; the table takes {limit} at most", 400, True)
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(limits.body_seconds):
            while chunk := await request.content.readany():
                size += len(chunk)
                if size > limit:
                    return refuse(f"the request body is over {limit} bytes, the most the table takes", close=True)
                chunks.append(chunk)
    except TimeoutError:
        return refuse(f"the request body did not arrive within {limits.body_seconds:g} s", 408, close=True)
    return b"".join(chunks)


def environ(request: web.BaseRequest, body: bytes) -> dict[str, Any]:
    """The WSGI environment (PEP 3333) for a request whose body has been read."""
    path, _, query = request.raw_path.partition("?")
    sock = request.transport.get_extra_info("sockname") if request.transport else None
    values: dict[str, Any] = {
        "REQUEST_METHOD": request.method,
        "SCRIPT_NAME": "",
        "PATH_INFO": unquote_to_bytes(path).decode("latin-1"),
        "QUERY_STRING": query,
        "SERVER_NAME": str(sock[0]) if sock else "localhost",
        "SERVER_PORT": str(sock[1]) if sock else "80",
        "SERVER_PROTOCOL": f"HTTP/{request.version.major}.{request.version.minor}",
        "REMOTE_ADDR": request.remote or "",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": request.scheme,
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    if "Content-Type" in request.headers:
        values["CONTENT_TYPE"] = request.headers["Content-Type"]
    for name in request.headers:
        key = "HTTP_" + name.upper().replace("-", "_")
        if key not in ("HTTP_CONTENT_TYPE", "HTTP_CONTENT_LENGTH") and key not in values:
            values[key] = ",".join(request.headers.getall(name))
    return values


def run_app(app: Flask, values: dict[str, Any]) -> tuple[int, list[tuple[str, str]], bytes]:
    """Call the app in this thread and read its whole answer."""
    started: list[Any] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        started[:] = [status, headers]
        return lambda data: None

    answer: Iterable[bytes] = app(values, start_response)
    try:
        body = b"".join(answer)
    finally:
        close = getattr(answer, "close", None)
        if close is not None:
            close()
    status, headers = started
    return int(status.split()[0]), [(k, v) for k, v in headers if k.lower() not in HOP_BY_HOP], body


async def call_app(
    request: web.BaseRequest, app: Flask, pool: Executor, limits: Limits, door: Door, lanes: dict[str, Lane]
) -> web.Response:
    admitted = door.admit(request.method, request.path, request.headers)
    if isinstance(admitted, Refused):
        return refuse(admitted.message, admitted.status, close=request.body_exists)
    lane = lanes[admitted.lane] if admitted.lane is not None else None
    if lane is not None and not lane.enter():
        return refuse(f"the table is busy with another {lane.name} request; try again in a moment", 503,
                      close=request.body_exists)  # fmt: skip
    try:
        if admitted.limit == 0:
            body, unread = b"", request.body_exists  # a view that takes no body here answers without one
        else:
            read = await read_body(request, admitted.limit, limits)
            if isinstance(read, web.Response):
                return read
            body, unread = read, False
        status, headers, content = await asyncio.get_running_loop().run_in_executor(
            lane.pool if lane is not None else pool, run_app, app, environ(request, body)
        )
    finally:
        if lane is not None:
            lane.leave()
    response = web.Response(status=status, body=content, headers=CIMultiDict(headers))
    if unread:
        response.force_close()  # the body was never read: the connection cannot carry another request
    return response
