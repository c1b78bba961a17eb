"""Game options given on the command line as NAME=VALUE pairs (`--option mode=supremacy`)."""

from __future__ import annotations

import json
from typing import Any

from companion.errors import UserError


def game_options(pairs: list[str], command: str) -> dict[str, Any]:
    """The options named by `pairs`; a VALUE is read as JSON when it can be, else as a string."""
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UserError(f"{command}: --option {pair!r}: expected NAME=VALUE")
        try:
            options[name] = json.loads(value)
        except json.JSONDecodeError:
            options[name] = value
    return options
