"""The default planet maps\x27 terrain files (see docs/rules/orbital_battle.md to replace them)."""
