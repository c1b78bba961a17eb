"""ORBIT (Reiner Knizia), the orbital race between interstellar tourists. See docs/rules/orbit.md for the rulings."""

from companion.rules.orbit.game import GAME, Orbit

__all__ = ["GAME", "Orbit"]
