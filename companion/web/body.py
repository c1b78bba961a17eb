"""Reading a JSON request body field by field, with a one-line 400 naming the field that is wrong.

The server has already refused a body over the limit its view declares (`takes`: BODY_BYTES unless said otherwise)
or one that did not arrive in time. Here the JSON itself is bounded: nested at most DEPTH deep, and every number a
plain one a phone's JavaScript holds exactly (|n| <= 2**53, no NaN or Infinity), so nothing a phone sends can take
the parser or a game's arithmetic anywhere strange.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from flask import request

from companion.web.errors import BadInput

_MISSING = object()
_TYPES = {str: "a string", int: "a whole number", bool: "true or false", dict: "an object", list: "a list"}
BODY_BYTES = 8 * 1024  # every body the API takes is a small JSON object (a new game's options are the largest)
UPLOAD_BYTES = 4 * 1024 * 1024  # a board's photo (scaled down on the page), a board file or a library file
DEPTH = 8  # objects and lists inside one another: the richest body (a new game's options) needs four
LARGEST = 2**53  # the largest whole number JavaScript holds exactly
TAKES = "orrery_takes"  # the attribute a view's body limit is kept in
View = TypeVar("View", bound=Callable[..., Any])


def takes(limit: int | Callable[[Any], int], lane: str | None = None) -> Callable[[View], View]:
    """A view's body limit in bytes (or a function of the table giving it: 0 for none), and the lane of bounded
    workers it runs in when its work is heavy (a game set up to check a board, a picture decoded): the server reads
    no more of a body than this, and runs a heavy view away from the pool that serves the page (server.py)."""

    def mark(view: View) -> View:
        setattr(view, TAKES, (limit, lane))
        return view

    return mark


def taken(view: Callable[..., Any], table: Any) -> tuple[int, str | None]:
    """What a view's body may hold at this table, and its lane."""
    limit, lane = getattr(view, TAKES, (BODY_BYTES, None))
    return (limit(table) if callable(limit) else limit), lane


class _Refused(ValueError):
    pass


def _whole(text: str) -> int:
    if len(text) > 17 or abs(int(text)) > LARGEST:
        raise _Refused(f"the number {text[:20]}{'...' if len(text) > 20 else ''} is too large (at most 2**53)")
    return int(text)


def _real(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")) or abs(value) > LARGEST:
        raise _Refused(f"the number {text[:20]} is too large (at most 2**53)")
    return value


def _constant(name: str) -> Any:
    raise _Refused(f"{name} is not a number JSON allows")


def _depth(value: Any) -> int:
    """How deep objects and lists nest in a parsed value (without recursion)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            todo.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def parse_json(data: bytes, depth: int = DEPTH, what: str = "the request body") -> Any:
    """JSON text within the limits above (nested at most `depth` deep), or BadInput saying what is wrong (one
    line, naming `what`)."""
    try:
        value = json.loads(data, parse_int=_whole, parse_float=_real, parse_constant=_constant)
    except _Refused as error:
        raise BadInput(f"{what}: {error}") from None
    except RecursionError:
        raise BadInput(f"{what} nests too deep (at most {depth} levels)") from None
    except (ValueError, UnicodeDecodeError):
        raise BadInput(f"{what} must be a JSON object (Content-Type: application/json)") from None
    if _depth(value) > depth:
        raise BadInput(f"{what} nests too deep (at most {depth} levels)")
    return value


def whole_arg(name: str, default: int) -> int:
    """A whole number from the query string (a game's number, an entry id): 0 to 2**53, or a one-line 400."""
    text = request.args.get(name)
    if text is None:
        return default
    if not (text.isascii() and text.isdigit()) or len(text) > 16 or int(text) > LARGEST:
        raise BadInput(f"{name}: expected a whole number from 0 to {LARGEST}, got {text[:20]!r}")
    return int(text)


def json_body() -> dict[str, Any]:
    if not request.is_json:
        raise BadInput("the request body must be a JSON object (Content-Type: application/json)")
    data = parse_json(request.get_data(cache=True))
    if not isinstance(data, dict):
        raise BadInput("the request body must be a JSON object (Content-Type: application/json)")
    return data


def field(data: dict[str, Any], name: str, kind: type, default: Any = _MISSING) -> Any:
    value = data.get(name, _MISSING)
    if value is _MISSING or value is None:
        if default is _MISSING:
            raise BadInput(f"{name}: missing; expected {_TYPES[kind]}")
        return default
    # bool is an int in Python; a whole number field must not take true or false.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise BadInput(f"{name}: expected {_TYPES[kind]}, got {value!r}")
    return value
