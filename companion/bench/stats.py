"""Figures every benchmark prints: medians and 95th percentiles of measured samples."""

from __future__ import annotations

import math
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


def lower_bound(successes: int, trials: int, confidence: float = 0.95) -> float:
    """The exact (Clopper-Pearson) one-sided lower bound on a rate seen as `successes` of `trials`: the least rate p
    at which `successes` or more would still come up 1 - `confidence` of the time. A clean run of n trials gives
    (1 - confidence) ** (1 / n): 299 clean frames are needed before 99 % is cleared at 95 %."""
    if trials <= 0 or successes <= 0:
        return 0.0
    if successes >= trials:
        return (1.0 - confidence) ** (1.0 / trials)

    def tail(p: float) -> float:  # P(X >= successes) for X ~ Binomial(trials, p), summed in logs
        logs = [
            math.lgamma(trials + 1)
            - math.lgamma(i + 1)
            - math.lgamma(trials - i + 1)
            + i * math.log(p)
            + (trials - i) * math.log1p(-p)
            for i in range(successes, trials + 1)
        ]
        top = max(logs)
        return math.exp(top) * sum(math.exp(v - top) for v in logs)

    lo, hi = 0.0, successes / trials  # the tail grows with p: bisect for where it reaches 1 - confidence
    for _ in range(60):
        mid = (lo + hi) / 2
        if tail(mid) < 1.0 - confidence:
            lo = mid
        else:
            hi = mid
    return lo


def upper_bound(failures: int, trials: int, confidence: float = 0.95) -> float:
    """The exact one-sided upper bound on a rate seen as `failures` of `trials` (e.g. stickers missed)."""
    return 1.0 - lower_bound(trials - failures, trials, confidence) if trials > 0 else 1.0
