"""Every number a game's options hold is bounded where the game declares its options: a phone or the host's settings
can never set a game up with a turn limit of 2**70 or a ship of a million slots."""

from __future__ import annotations

import dataclasses
import typing
from typing import Annotated, Any

import pytest

from companion import codec
from companion.rules import load, names


def unbounded(hint: Any, path: str) -> list[str]:
    """The paths of every int or float in a type that carries no Range."""
    origin = typing.get_origin(hint)
    if origin is Annotated:
        base, *marks = typing.get_args(hint)
        if base in (int, float):
            return [] if any(isinstance(m, codec.Range) for m in marks) else [path]
        return unbounded(base, path)
    if hint in (int, float):
        return [path]
    if dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint, include_extras=True)
        return [p for f in dataclasses.fields(hint) for p in unbounded(hints[f.name], f"{path}.{f.name}")]
    return [p for n, arg in enumerate(typing.get_args(hint)) for p in unbounded(arg, f"{path}[{n}]")]


@pytest.mark.parametrize("name", names())
def test_every_number_in_a_game_s_options_has_bounds(name):
    options = typing.get_type_hints(load(name).state_type).get("options")
    assert options is not None and dataclasses.is_dataclass(options)
    assert unbounded(options, "options") == []


def test_the_check_finds_an_unbounded_number():
    @dataclasses.dataclass(frozen=True)
    class Loose:
        rounds: int = 0
        seats: tuple[codec.whole(0, 9), ...] = ()  # type: ignore[valid-type]
        points: dict[str, float] | None = None

    assert unbounded(Loose, "options") == ["options.rounds", "options.points[0][1]"]
