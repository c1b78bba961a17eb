"""Periorbis, the economic game of asteroid mining, contracts and wages. See docs/rules/periorbis.md for the rulings."""

from companion.rules.periorbis.game import GAME, Periorbis

__all__ = ["GAME", "Periorbis"]
