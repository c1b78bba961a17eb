"""The only source of chance in the rules: a seeded generator carried inside the game state.

A value, not an object with hidden state: every draw returns the result and the next generator, so a game replays
exactly from its seed and its action list. Two generators, chosen by the seed:
- a seed a person types (below KEYED_FROM: tests, the demo, scenario files, games logged before) drives SplitMix64,
  tiny, fast and well mixed even for seeds 0, 1, 2, ..., and replayable by anyone who knows the seed;
- a table's own seed, drawn from the system's entropy at or above KEYED_FROM, is the key of BLAKE2b over a counter:
  a keyed hash, so the rolls and draws seen so far tell nothing of the next one without the key, which no phone
  is shown while the game is on (SplitMix64's output gives its state away; a 63-bit key is beyond guessing).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
KEYED_FROM = 2**53  # seeds from here up are keys (no seed a phone's JavaScript or a person types reaches it)
KEYED_BELOW = 2**63  # a key fits the log's whole-number column


@dataclass(frozen=True)
class Rng:
    state: int  # SplitMix64's state, or the keyed generator's counter
    key: int = 0  # 0: SplitMix64; else the key of the keyed generator

    @classmethod
    def seeded(cls, seed: int) -> Rng:
        if KEYED_FROM <= seed < KEYED_BELOW:
            return cls(0, seed)
        return cls(seed & _MASK)

    def next64(self) -> tuple[int, Rng]:
        if self.key:
            digest = hashlib.blake2b(self.state.to_bytes(8, "little"), digest_size=8,
                                     key=self.key.to_bytes(8, "little")).digest()  # fmt: skip
            return int.from_bytes(digest, "little"), Rng(self.state + 1, self.key)
        state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31), Rng(state)

    def below(self, n: int) -> tuple[int, Rng]:
        """A uniform integer in [0, n); rejection sampling keeps it unbiased."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = (1 << 64) - ((1 << 64) % n)
        rng = self
        while True:
            value, rng = rng.next64()
            if value < limit:
                return value % n, rng

    def choice(self, items: Sequence[T]) -> tuple[T, Rng]:
        index, rng = self.below(len(items))
        return items[index], rng

    def shuffled(self, items: Sequence[T]) -> tuple[tuple[T, ...], Rng]:
        """Fisher-Yates over a copy."""
        out = list(items)
        rng = self
        for i in range(len(out) - 1, 0, -1):
            j, rng = rng.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return tuple(out), rng
