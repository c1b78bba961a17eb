from dataclasses import dataclass, field
from typing import Literal

import pytest

from companion.codec import CodecError, from_json, to_json


@dataclass(frozen=True)
class Inner:
    count: int
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outer:
    name: str
    mode: Literal["a", "b"]
    inner: Inner
    by_name: dict[str, Inner] = field(default_factory=dict)
    maybe: float | None = None
    pair: tuple[int, str] = (0, "")


def test_round_trip_keeps_every_field():
    value = Outer("x", "b", Inner(3, ("p", "q")), {"k": Inner(1)}, 2.5, (4, "y"))
    assert from_json(Outer, to_json(value)) == value


def test_defaults_fill_missing_optional_fields():
    assert from_json(Outer, {"name": "x", "mode": "a", "inner": {"count": 1}}) == Outer("x", "a", Inner(1))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "x", "mode": "c", "inner": {"count": 1}}, "value.mode: expected one of a, b, got 'c'"),
        ({"name": "x", "mode": "a", "inner": {"count": "1"}}, "value.inner.count: expected an integer, got '1'"),
        ({"name": "x", "mode": "a", "inner": {"count": True}}, "value.inner.count: expected an integer"),
        ({"name": "x", "mode": "a"}, "value: missing field 'inner'"),
        ({"name": "x", "mode": "a", "inner": {"count": 1}, "extra": 1}, "value: unknown field 'extra'"),
        ({"name": "x", "mode": "a", "inner": {"count": 1}, "by_name": {"k": {"count": []}}}, "value.by_name.k.count"),
        ({"name": "x", "mode": "a", "inner": {"count": 1}, "pair": [1]}, "value.pair: expected 2 items, got 1"),
        ([], "value: expected an object"),
    ],
)
def test_errors_name_the_path(data, message):
    with pytest.raises(CodecError) as error:
        from_json(Outer, data)
    assert message in str(error.value)
