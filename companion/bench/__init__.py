"""Benchmarks shipped with the companion (`companion bench NAME`); each prints its figures."""
