from collections import Counter

import pytest

from companion.rules.rng import Rng


def test_same_seed_same_draws():
    a, b = Rng.seeded(42), Rng.seeded(42)
    for _ in range(100):
        x, a = a.below(1000)
        y, b = b.below(1000)
        assert x == y


def test_a_draw_leaves_the_generator_it_came_from_unchanged():
    rng = Rng.seeded(5)
    first, _ = rng.below(10**9)
    again, _ = rng.below(10**9)
    assert first == again


def test_below_is_roughly_uniform():
    rng = Rng.seeded(1)
    counts = Counter()
    for _ in range(6000):
        value, rng = rng.below(6)
        counts[value] += 1
    assert set(counts) == set(range(6))
    assert all(850 < n < 1150 for n in counts.values())


def test_shuffle_is_a_permutation_and_depends_on_the_seed():
    items = list(range(20))
    one, _ = Rng.seeded(1).shuffled(items)
    two, _ = Rng.seeded(2).shuffled(items)
    assert sorted(one) == items and sorted(two) == items
    assert one != two


def test_below_needs_a_positive_bound():
    with pytest.raises(ValueError):
        Rng.seeded(1).below(0)
