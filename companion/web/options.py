"""The setup wizard's fields for a game's options, read from the type of its state's `options` field.

A game whose state has an `options` dataclass gets one field per option: a choice for a Literal, a number, a
checkbox, or JSON text for anything richer (seats, planets). A game without one gets none, and the wizard still
accepts options as JSON.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, Literal, get_args, get_origin

from companion import codec
from companion.rules import Game


def _kind(hint: Any) -> tuple[str, list[Any]]:
    if get_origin(hint) is Literal:
        return "choice", list(get_args(hint))
    if hint is bool:
        return "bool", []
    if hint in (int, float):
        return "number", []
    if hint is str:
        return "text", []
    return "json", []


def option_fields(game: Game) -> list[dict[str, Any]]:
    """[{name, kind, choices, default}] for the game's options; empty when the game declares none."""
    try:
        options_type = typing.get_type_hints(game.state_type).get("options")
    except (NameError, TypeError):
        return []
    if options_type is None or not dataclasses.is_dataclass(options_type):
        return []
    hints = typing.get_type_hints(options_type)
    defaults = codec.to_json(options_type())
    fields = []
    for field in dataclasses.fields(options_type):
        kind, choices = _kind(hints[field.name])
        fields.append({"name": field.name, "kind": kind, "choices": choices, "default": defaults.get(field.name)})
    return fields
