"""Orbital Battle, the two-player wargame on a moving solar system. See docs/rules/orbital_battle.md for the rulings."""

from companion.rules.orbital_battle.game import GAME, OrbitalBattle

__all__ = ["GAME", "OrbitalBattle"]
