"""Periorbis's default data files (a package so that they ship with the companion); see docs/rules/periorbis.md."""
