"""What the New game form calls each game's options, in the players' words: each game declares them
(`Game.option_words`, from its package's options.json).

The rules name options for code (`heavy_lift_extra_slots`, `second_colours`); the form shows a label, a line saying
what the option does, and a name for each choice.
"""

from __future__ import annotations

from companion.rules import load
from companion.rules.engine import OptionWords


def words_for(game: str, option: str) -> OptionWords:
    """The option's words; an option nobody described reads as its name (a test holds every option described)."""
    return load(game).option_words.get(option) or OptionWords(option.replace("_", " ").capitalize())
