"""The default planet maps' terrain files (see docs/rules/orbital_battle.md to replace them)."""
