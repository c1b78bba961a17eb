"""Orrery, the table companion: senses the board, referees the rules, keeps the books."""

__version__ = "0.1.0"
