"""Calibration: procedures that turn measurements of a real table into profile files."""
