"""Figures every benchmark prints: medians and 95th percentiles of measured samples."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def percentile(samples: Sequence[float], fraction: float) -> float:
    ordered = sorted(samples)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def summary(samples: Sequence[float], scale: float = 1e6, unit: str = "us") -> str:
    """ "median 12.3 us, p95 20.1 us, max 40.2 us (n=1000)" for samples in seconds."""
    if not samples:
        return "no samples"
    return (
        f"median {statistics.median(samples) * scale:.1f} {unit}, p95 {percentile(samples, 0.95) * scale:.1f} {unit}, "
        f"max {max(samples) * scale:.1f} {unit} (n={len(samples)})"
    )
