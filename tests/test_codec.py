from dataclasses import dataclass, field
from typing import Annotated, Literal

import pytest

from companion.codec import CodecError, MaxLength, Maybe, decode_fields, from_json, text, to_json, whole


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


def test_literals_match_the_type_as_well_as_the_value():
    with pytest.raises(CodecError, match=r"expected one of 6, 7, got 6\.0"):
        from_json(Literal[6, 7], 6.0)
    with pytest.raises(CodecError, match="expected one of 1, 2, got True"):
        from_json(Literal[1, 2], True)
    assert from_json(Literal[6, 7], 6) == 6


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"slot": 6.0}, r"args.slot: expected an integer, got 6.0"),
        ({"slot": "6"}, r"args.slot: expected an integer, got '6'"),
        ({"slot": True}, r"args.slot: expected an integer, got True"),
        ({"slot": -1}, r"args.slot: expected a whole number from 1 to 7, got -1"),
        ({"slot": 10**30}, r"args.slot: expected a whole number from 1 to 7, got 1000"),
        ({"slot": 10**50}, r"args.slot: expected a whole number from 1 to 7, got a number of more than 40 digits"),
        ({}, r"args: missing 'slot'"),
        ({"slot": 6, "colour": "x"}, r"args: unknown argument 'colour' \(arguments: slot, name, items\)"),
        ({"slot": 6, "name": "x" * 65}, r"args.name: at most 64 characters, got 65"),
        ({"slot": 6, "items": ["a"] * 4}, r"args.items: at most 3 items, got 4"),
    ],
)
def test_fields_are_checked_against_their_schema(data, message):
    fields = {"slot": whole(1, 7), "name": Maybe(text()), "items": Maybe(Annotated[tuple[str, ...], MaxLength(3)])}
    with pytest.raises(CodecError, match=message):
        decode_fields(fields, data, "args")


def test_left_out_fields_are_left_out():
    fields = {"slot": whole(1, 7), "name": Maybe(text())}
    assert decode_fields(fields, {"slot": 7, "name": None}, "args") == {"slot": 7}
    assert decode_fields(fields, {"slot": 1, "name": "ada"}, "args") == {"slot": 1, "name": "ada"}
