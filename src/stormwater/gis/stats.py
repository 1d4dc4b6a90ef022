"""The ERU statistics (Ch. 295 Art. IV ¶B). Imports no Django.

¶B: "An ERU shall equal that square footage that represents the median of the area of impervious
surface for all single-family residences in the Town." The Select Board sets it by resolution;
this module gives the Board the median, the distribution and the outliers to decide with.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from statistics import median

OUTLIER_IQR_FACTOR = Decimal("1.5")  # Tukey's fences: below Q1 − 1.5·IQR or above Q3 + 1.5·IQR


@dataclass(frozen=True)
class Bin:
    lo: Decimal
    hi: Decimal
    count: int


@dataclass(frozen=True)
class EruStats:
    n: int
    median_sqft: Decimal
    q1_sqft: Decimal
    q3_sqft: Decimal
    mean_sqft: Decimal
    min_sqft: Decimal
    max_sqft: Decimal
    low_fence_sqft: Decimal
    high_fence_sqft: Decimal
    bins: tuple[Bin, ...]

    @property
    def eru_sqft(self) -> Decimal:
        """The median rounded to the whole ft² (halves up) — the figure a resolution states."""
        return self.median_sqft.quantize(Decimal(1), rounding=ROUND_HALF_UP)


def quartiles(values: list[Decimal]) -> tuple[Decimal, Decimal, Decimal]:
    """Q1, median, Q3 by the median-of-halves method (Tukey's hinges; the median excluded from halves)."""
    v = sorted(values)
    n = len(v)
    if n == 0:
        raise ValueError("no single-family residences with a measured impervious area")
    med = Decimal(median(v))
    half = n // 2
    lower, upper = v[:half], v[half + (n % 2):]
    q1 = Decimal(median(lower)) if lower else v[0]
    q3 = Decimal(median(upper)) if upper else v[-1]
    return q1, med, q3


def histogram(values: list[Decimal], *, bin_sqft: Decimal | None = None, max_bins: int = 40) -> tuple[Bin, ...]:
    """Counts in equal bins [lo, hi) of width ``bin_sqft`` (default: a round width giving ≤ max_bins)."""
    if not values:
        return ()
    lo, hi = min(values), max(values)
    if bin_sqft is None:
        span = float(hi - lo) or 1.0
        raw = span / max_bins
        mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
        step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
        bin_sqft = Decimal(str(step))
    start = (lo // bin_sqft) * bin_sqft
    n = int((hi - start) // bin_sqft) + 1
    counts = [0] * n
    for x in values:
        counts[int((x - start) // bin_sqft)] += 1
    return tuple(Bin(start + i * bin_sqft, start + (i + 1) * bin_sqft, c) for i, c in enumerate(counts))


def eru_stats(values: list[Decimal], *, bin_sqft: Decimal | None = None) -> EruStats:
    """Median, quartiles, Tukey fences and histogram of single-family impervious areas [ft²]."""
    vals = [Decimal(v) for v in values]
    q1, med, q3 = quartiles(vals)
    iqr = q3 - q1
    return EruStats(
        n=len(vals), median_sqft=med, q1_sqft=q1, q3_sqft=q3,
        mean_sqft=(sum(vals, Decimal(0)) / len(vals)).quantize(Decimal("0.01")),
        min_sqft=min(vals), max_sqft=max(vals),
        low_fence_sqft=q1 - OUTLIER_IQR_FACTOR * iqr, high_fence_sqft=q3 + OUTLIER_IQR_FACTOR * iqr,
        bins=histogram(vals, bin_sqft=bin_sqft))


def is_outlier(value: Decimal, stats: EruStats) -> bool:
    return value < stats.low_fence_sqft or value > stats.high_fence_sqft
