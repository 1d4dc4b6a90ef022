"""Load the reference tables shipped in ``data/`` once (each CSV names its source in ``#`` lines)."""
from __future__ import annotations

import csv
import io
from bisect import bisect_left
from functools import lru_cache
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "data"


def csv_text_rows(text: str) -> list[dict[str, str]]:
    """Rows of a CSV text whose comment lines start with ``#``, as dicts keyed by the header."""
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    return list(csv.DictReader(io.StringIO("\n".join(lines))))


@lru_cache(maxsize=None)
def table(name: str) -> tuple[dict[str, str], ...]:
    """The rows of ``data/<name>`` (read once per process)."""
    return tuple(csv_text_rows((DATA_DIR / name).read_text(encoding="utf-8")))


def interp(x: float, xs: list[float] | tuple[float, ...], ys: list[float] | tuple[float, ...], *, what: str) -> float:
    """Linear interpolation on ascending ``xs``; ``ValueError`` outside ``[xs[0], xs[-1]]``."""
    if not xs[0] <= x <= xs[-1]:
        raise ValueError(f"{what}: {x:g} is outside the tabulated range {xs[0]:g} to {xs[-1]:g}")
    i = max(1, bisect_left(xs, x))
    x0, x1 = xs[i - 1], xs[i]
    if x1 == x0:
        return ys[i]
    return ys[i - 1] + (ys[i] - ys[i - 1]) * (x - x0) / (x1 - x0)


def require_finite(value: float, name: str) -> float:
    """``value`` as float, or ``ValueError`` naming ``name`` if it is not a finite number."""
    if isinstance(value, bool):
        raise ValueError(f"{name}: must be a number")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: must be a number") from None
    if v != v or v in (float("inf"), float("-inf")):
        raise ValueError(f"{name}: must be a finite number")
    return v
