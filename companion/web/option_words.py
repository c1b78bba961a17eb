"""What the New game form calls each game's options, in the players' words (option_words.json).

The rules name options for code (`heavy_lift_extra_slots`, `second_colours`); the form shows a label, a line saying
what the option does, and a name for each choice. Options that only a table set up its own way needs (JSON: seats
by angle, a spinner of its own, where it put its planets) are `advanced`: the form folds them away. `player` marks an
option whose value is one of the game's players.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class OptionWords:
    label: str
    help: str = ""
    choices: dict[Any, str] = field(default_factory=dict)
    advanced: bool = False
    player: bool = False


def _load() -> dict[tuple[str, str], OptionWords]:
    raw = json.loads((Path(__file__).with_name("option_words.json")).read_text(encoding="utf-8"))
    return {(game, option): OptionWords(**words) for game, options in raw.items() for option, words in options.items()}


WORDS: dict[tuple[str, str], OptionWords] = _load()


def words_for(game: str, option: str) -> OptionWords:
    """The option's words; an option nobody described reads as its name (a test holds every option described)."""
    return WORDS.get((game, option)) or OptionWords(option.replace("_", " ").capitalize())
