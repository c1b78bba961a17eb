"""The setup wizard's fields for a game's options, read from the type of its state's `options` field.

A game whose state has an `options` dataclass gets one field per option: a choice for a Literal, a number, a
checkbox, or JSON text for anything richer (seats). An option naming files is a choice among the game's own data and
the table's data sets; one naming a file for each planet, a choice for each planet. A game without options gets none,
and the wizard still accepts options as JSON.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Annotated, Any, Literal, get_args, get_origin

from companion import codec
from companion.rules import Game
from companion.web.option_words import words_for

OWN = "the game's own"  # how a choice of the game's own data reads


def _kind(hint: Any) -> tuple[str, list[Any]]:
    if get_origin(hint) is Annotated:
        return _kind(get_args(hint)[0])  # a bounded number is a number (the game refuses it out of bounds)
    if get_origin(hint) is Literal:
        return "choice", list(get_args(hint))
    if hint is bool:
        return "bool", []
    if hint in (int, float):
        return "number", []
    if hint is str:
        return "text", []
    return "json", []


def option_fields(game: Game, offered: dict[str, list[Any]] | None = None) -> list[dict[str, Any]]:
    """[{name, kind, choices, default, label, help, advanced}] for the game's options; empty when the game declares
    none. An option that names files is a choice among what the table `offered` (its data sets), after the game's
    own; one whose value is a player is of kind "player"."""
    try:
        options_type = typing.get_type_hints(game.state_type).get("options")
    except (NameError, TypeError):
        return []
    if options_type is None or not dataclasses.is_dataclass(options_type):
        return []
    hints = typing.get_type_hints(options_type, include_extras=True)
    defaults = codec.to_json(options_type())
    fields = []
    for field in dataclasses.fields(options_type):
        kind, choices = _kind(hints[field.name])
        extra: dict[str, Any] = {}
        if offered is not None and field.name in offered:
            takes = game.data_options[field.name]
            if not offered[field.name] and all(v in (None, "") for v in takes.built_in):
                continue  # nothing to choose but the game's own: the option is left out
            own = list(takes.built_in)
            kind, choices = "choice", [*own, *offered[field.name]]
            words = words_for(game.name, field.name).choices
            # the game's own deck has no name; the board's sides have theirs
            extra["labels"] = [OWN if v in (None, "") else words.get(v, str(v)) for v in choices]
            if takes.kind == "files":
                # a choice for each key (each planet): its keys ("3") and what each is called ("planet 3")
                kind, choices = "choices", [v for v in choices if v is not None]
                extra = {"labels": [OWN, *choices], "keys": dict(takes.keys)}
        words = words_for(game.name, field.name)
        if kind == "choice" and "labels" not in extra and words.choices:
            extra["labels"] = [words.choices.get(choice, str(choice)) for choice in choices]
        if words.player:
            kind = "player"
        fields.append(
            {
                "name": field.name,
                "kind": kind,
                "choices": choices,
                "default": defaults.get(field.name),
                "label": words.label,
                "help": words.help,
                "advanced": words.advanced,
                **extra,
            }
        )
    return fields
