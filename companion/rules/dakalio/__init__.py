"""Dakalio on the Orbix mat: ships slide until something stops them. See docs/rules/dakalio.md for the rulings."""

from companion.rules.dakalio.game import GAME, Dakalio

__all__ = ["GAME", "Dakalio"]
