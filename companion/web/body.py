"""Reading a JSON request body field by field, with a one-line 400 naming the field that is wrong."""

from __future__ import annotations

from typing import Any

from flask import request

from companion.web.errors import BadInput

_MISSING = object()
_TYPES = {str: "a string", int: "a whole number", bool: "true or false", dict: "an object", list: "a list"}


def json_body() -> dict[str, Any]:
    data = request.get_json(silent=True)
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
