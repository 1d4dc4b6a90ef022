"""Reading a plan file's mappings (review/plan.py and the parts read in their own modules, review/reaches.py): the
error whose message starts with the field's path, and the reader of one mapping that tracks its path and refuses
unknown keys. Pure Python."""
from __future__ import annotations

import math
from typing import Any


class PlanError(ValueError):
    """The plan file is unreadable or inconsistent; the message starts with the field's path."""


class _Obj:
    """A mapping being read: tracks its path and refuses unknown keys."""

    def __init__(self, raw: Any, path: str, known: set[str]):
        if not isinstance(raw, dict):
            raise PlanError(f"{path}: expected a mapping")
        unknown = sorted(str(k) for k in raw if str(k) not in known)
        if unknown:
            raise PlanError(f"{path}.{unknown[0]}: unknown field (expected {', '.join(sorted(known))})")
        self.raw = {str(k): v for k, v in raw.items()}
        self.path = path

    def at(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def has(self, key: str) -> bool:
        return self.raw.get(key) is not None

    def str(self, key: str, *, required: bool = False, default: str = "") -> str:
        v = self.raw.get(key)
        if v is None:
            if required:
                raise PlanError(f"{self.at(key)}: required")
            return default
        if isinstance(v, (dict, list)):
            raise PlanError(f"{self.at(key)}: must be text")
        return str(v).strip()

    def num(self, key: str, *, required: bool = False, lo: float | None = None, hi: float | None = None,
            positive: bool = False) -> float | None:
        v = self.raw.get(key)
        if v is None:
            if required:
                raise PlanError(f"{self.at(key)}: required")
            return None
        return _number(v, self.at(key), lo=lo, hi=hi, positive=positive)

    def bool(self, key: str, *, required: bool = False, default: bool = False) -> bool:
        v = self.raw.get(key)
        if v is None:
            if required:
                raise PlanError(f"{self.at(key)}: required (true or false)")
            return default
        if not isinstance(v, bool):
            raise PlanError(f"{self.at(key)}: must be true or false")
        return v

    def list(self, key: str, *, required: bool = False) -> list:
        v = self.raw.get(key)
        if v is None:
            if required:
                raise PlanError(f"{self.at(key)}: required (a list)")
            return []
        if not isinstance(v, list):
            raise PlanError(f"{self.at(key)}: must be a list")
        return v


def _number(v: Any, path: str, *, lo: float | None = None, hi: float | None = None, positive: bool = False) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise PlanError(f"{path}: must be a number")
    try:
        x = float(v)
    except ValueError:
        raise PlanError(f"{path}: {v!r} is not a number") from None
    if not math.isfinite(x):
        raise PlanError(f"{path}: must be a finite number")
    if positive and x <= 0:
        raise PlanError(f"{path}: must be greater than zero")
    if lo is not None and x < lo:
        raise PlanError(f"{path}: must be at least {lo:g}")
    if hi is not None and x > hi:
        raise PlanError(f"{path}: must be at most {hi:g}")
    return x
