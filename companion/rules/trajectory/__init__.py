"""Trajectory, the cooperative game of orbits, fuel and infestors. See docs/rules/trajectory.md for the rulings."""

from companion.rules.trajectory.game import GAME, Trajectory

__all__ = ["GAME", "Trajectory"]
