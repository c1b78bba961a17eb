"""Plain-data form of the rules' values: frozen dataclasses to JSON and back.

Every game keeps its state as frozen dataclasses built from ints, strings, tuples and dicts. One codec serves all
of them, so the log, replays, the API and the scenario files all read and write the same form, and a bad file is
reported by the path of the field that is wrong ("ships.red.fuel: expected an integer, got 'x'").
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, TypeVar

T = TypeVar("T")


class CodecError(ValueError):
    """A value does not fit the shape its field declares; the message starts with the field's path."""


@dataclass(frozen=True)
class Range:
    """`Annotated[int, Range(0, 9)]`: a whole number from `low` to `high` (or a number, on a float)."""

    low: float
    high: float


@dataclass(frozen=True)
class MaxLength:
    """`Annotated[str, MaxLength(64)]` (or a tuple): at most this many characters or items."""

    most: int


@dataclass(frozen=True)
class Maybe:
    """A field of a `fields` schema that may be left out (or given as null)."""

    kind: Any


def whole(low: int = 0, high: int = 999) -> Any:
    """The type of a bounded whole number: JSON 6.0, "6", true, -1 or 10**30 do not fit."""
    return Annotated[int, Range(low, high)]


def number(low: float, high: float) -> Any:
    """The type of a bounded number that may have a fraction (degrees round a table)."""
    return Annotated[float, Range(low, high)]


def text(most: int = 64) -> Any:
    """The type of a short string (a name, a site id, a card id)."""
    return Annotated[str, MaxLength(most)]


def decode_fields(fields: Mapping[str, Any], data: Mapping[str, Any], path: str) -> dict[str, Any]:
    """Named values checked against a schema {name: type or Maybe(type)}: every unknown name refused by name, every
    name not wrapped in Maybe required, every value decoded as its type. Left-out Maybe fields are not returned."""
    for key in data:
        if key not in fields:
            known = ", ".join(fields) or "none"
            raise CodecError(f"{path}: unknown argument {_describe(key)} (arguments: {known})")
    values = {}
    for name, kind in fields.items():
        value = data.get(name)
        if isinstance(kind, Maybe):
            if value is not None:
                values[name] = _decode(kind.kind, value, f"{path}.{name}")
        elif name not in data:
            raise CodecError(f"{path}: missing {name!r}")
        else:
            values[name] = _decode(kind, value, f"{path}.{name}")
    return values


def to_json(value: Any) -> Any:
    """Turn a rules value into JSON-ready data (dicts, lists, strings, numbers, booleans, None)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [to_json(v) for v in value]
    if isinstance(value, frozenset):
        return sorted(to_json(v) for v in value)
    if isinstance(value, Mapping):
        return {str(k): to_json(v) for k, v in value.items()}
    return value


def from_json(kind: type[T] | Any, data: Any, path: str = "", given: Mapping[str, Any] | None = None) -> T:
    """Build a value of type `kind` from JSON data, checking every field; raises CodecError naming the path.
    `given`: fields of the dataclass `kind` taken as they are, not read from `data` (a value kept elsewhere)."""
    if given:
        if not isinstance(data, dict):
            raise CodecError(f"{path or 'value'}: expected an object, got {_describe(data)}")
        return _decode_dataclass(kind, data, path or "value", given)
    return _decode(kind, data, path or "value")


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, include_extras=True)


def _describe(data: Any) -> str:
    if isinstance(data, int) and abs(data) >= 10**40:
        return "a number of more than 40 digits"  # repr of a huge int is slow, or refused past 4300 digits
    text = repr(data)
    return text if len(text) <= 40 else text[:37] + "..."


def _decode(kind: Any, data: Any, path: str) -> Any:
    origin = typing.get_origin(kind)
    if kind is Any:
        return data
    if dataclasses.is_dataclass(kind):
        return _decode_dataclass(kind, data, path)
    if origin is Annotated:
        return _decode_annotated(kind, data, path)
    if origin is typing.Union or origin is types.UnionType:
        return _decode_union(kind, data, path)
    if origin is typing.Literal:
        # 6.0 == 6 and True == 1 in Python: the type must match too, or a float would be stored for an int
        if any(type(data) is type(choice) and data == choice for choice in typing.get_args(kind)):
            return data
        choices = ", ".join(str(a) for a in typing.get_args(kind))
        raise CodecError(f"{path}: expected one of {choices}, got {_describe(data)}")
    if origin is tuple:
        return _decode_tuple(kind, data, path)
    if origin is frozenset:
        (item,) = typing.get_args(kind)
        if not isinstance(data, list):
            raise CodecError(f"{path}: expected a list, got {_describe(data)}")
        return frozenset(_decode(item, v, f"{path}[{i}]") for i, v in enumerate(data))
    if origin in (dict, Mapping) or origin is typing.get_origin(Mapping[str, int]):
        key_kind, value_kind = typing.get_args(kind)
        if not isinstance(data, dict):
            raise CodecError(f"{path}: expected an object, got {_describe(data)}")
        return {_decode(key_kind, k, path): _decode(value_kind, v, f"{path}.{k}") for k, v in data.items()}
    return _decode_scalar(kind, data, path)


def _decode_scalar(kind: Any, data: Any, path: str) -> Any:
    if kind is type(None):
        if data is None:
            return None
        raise CodecError(f"{path}: expected null, got {_describe(data)}")
    if kind is bool:
        if isinstance(data, bool):
            return data
        raise CodecError(f"{path}: expected true or false, got {_describe(data)}")
    if kind is int:
        if isinstance(data, int) and not isinstance(data, bool):
            return data
        raise CodecError(f"{path}: expected an integer, got {_describe(data)}")
    if kind is float:
        if isinstance(data, (int, float)) and not isinstance(data, bool):
            return float(data)
        raise CodecError(f"{path}: expected a number, got {_describe(data)}")
    if kind is str:
        if isinstance(data, str):
            return data
        raise CodecError(f"{path}: expected a string, got {_describe(data)}")
    raise TypeError(f"{path}: the codec cannot decode {kind!r}")


def _decode_annotated(kind: Any, data: Any, path: str) -> Any:
    base, *marks = typing.get_args(kind)
    value = _decode(base, data, path)
    for mark in marks:
        if isinstance(mark, Range) and not mark.low <= value <= mark.high:
            what = "a whole number" if base is int else "a number"
            raise CodecError(f"{path}: expected {what} from {mark.low} to {mark.high}, got {_describe(data)}")
        if isinstance(mark, MaxLength) and len(value) > mark.most:
            what = "characters" if isinstance(value, str) else "items"
            raise CodecError(f"{path}: at most {mark.most} {what}, got {len(value)}")
    return value


def _decode_union(kind: Any, data: Any, path: str) -> Any:
    options = typing.get_args(kind)
    if data is None and type(None) in options:
        return None
    errors = []
    for option in options:
        if option is type(None):
            continue
        try:
            return _decode(option, data, path)
        except CodecError as error:
            errors.append(str(error))
    raise CodecError(errors[0] if len(errors) == 1 else f"{path}: {_describe(data)} fits none of the allowed forms")


def _decode_tuple(kind: Any, data: Any, path: str) -> tuple:
    args = typing.get_args(kind)
    if not isinstance(data, list):
        raise CodecError(f"{path}: expected a list, got {_describe(data)}")
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(_decode(args[0], v, f"{path}[{i}]") for i, v in enumerate(data))
    if len(args) != len(data):
        raise CodecError(f"{path}: expected {len(args)} items, got {len(data)}")
    return tuple(_decode(a, v, f"{path}[{i}]") for i, (a, v) in enumerate(zip(args, data, strict=True)))


def _decode_dataclass(cls: type, data: Any, path: str, given: Mapping[str, Any] | None = None) -> Any:
    if not isinstance(data, dict):
        raise CodecError(f"{path}: expected an object, got {_describe(data)}")
    hints = _hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise CodecError(f"{path}: unknown field {unknown[0]!r} (known: {', '.join(fields)})")
    values = dict(given or {})
    for name, field in fields.items():
        if name in values:
            continue
        if name in data:
            values[name] = _decode(hints[name], data[name], f"{path}.{name}")
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            raise CodecError(f"{path}: missing field {name!r}")
    return cls(**values)
