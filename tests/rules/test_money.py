import random
from decimal import Decimal as D

import pytest

from stormwater.rules.money import allocate, fmt, round_cents, split_equal, to_decimal


def test_round_half_up_to_the_cent():
    assert round_cents(D("0.005")) == D("0.01") and round_cents(D("382.752")) == D("382.75")
    assert fmt(D("5")) == "5.00"


def test_allocation_always_sums_to_the_whole():
    rng = random.Random(7)
    for _ in range(500):
        total = D(rng.randint(0, 10_000_000)) / 100
        weights = [D(rng.randint(1, 100000)) / 10000 for _ in range(rng.randint(1, 30))]
        parts = allocate(total, weights)
        assert sum(parts) == total and all(p >= 0 for p in parts)


def test_largest_remainder_gives_leftover_cents_to_the_biggest_fractions():
    assert allocate(D("100.00"), [D("33.3333"), D("33.3333"), D("33.3334")]) == [D("33.33"), D("33.33"), D("33.34")]
    assert split_equal(D("10.00"), 3) == [D("3.34"), D("3.33"), D("3.33")]
    assert allocate(D("-10.00"), [D(1)] * 3) == [D("-3.34"), D("-3.33"), D("-3.33")]


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="weights"):
        allocate(D(1), [D(0)])
    with pytest.raises(ValueError, match="impervious_sqft"):
        to_decimal("abc", field="impervious_sqft")
    with pytest.raises(ValueError):
        to_decimal("NaN")
