"""The report's rows: one shape for every decision, their statuses and labels (pure; no Django)."""
from __future__ import annotations

from .quality import FAIL, INFO, NOT_APPLICABLE, NOT_ASSESSABLE, PASS

STATUS_LABELS = {PASS: "Pass", FAIL: "Fail", NOT_ASSESSABLE: "Not assessable", INFO: "Reported",
                 NOT_APPLICABLE: "Not applicable"}
_SEVERITY = {FAIL: 4, NOT_ASSESSABLE: 3, PASS: 2, INFO: 1, NOT_APPLICABLE: 0}


def _r(x: float | None, nd: int) -> float | None:
    return None if x is None else round(x, nd)


def row(key: str, title: str, provision: str, status: str, *, required: str = "", provided: str = "",
         reason: str = "", numbers: dict | None = None, provisional: bool = False, sources: list | None = None,
         working: list | None = None) -> dict:
    return {"key": key, "title": title, "provision": provision, "status": status,
            "status_label": STATUS_LABELS[status], "required": required, "provided": provided, "reason": reason,
            "numbers": numbers or {}, "provisional": provisional, "sources": sources or [], "working": working or []}


def worst(statuses) -> str:
    statuses = list(statuses)
    return max(statuses, key=lambda s: _SEVERITY[s]) if statuses else NOT_APPLICABLE
