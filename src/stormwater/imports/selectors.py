"""Reads of the imports app."""
from __future__ import annotations

from .models import ImportRecord


def import_records(*, kind: str | None = None, limit: int = 50) -> list[ImportRecord]:
    qs = ImportRecord.objects.select_related("created_by")
    if kind:
        qs = qs.filter(kind=kind)
    return list(qs[:limit])


def last_applied(*, kind: str, content_checksum: str) -> ImportRecord | None:
    """The last import of this kind that applied the same content (for "already imported on …")."""
    return (ImportRecord.objects.filter(kind=kind, content_checksum=content_checksum,
                                        outcome=ImportRecord.Outcome.APPLIED).order_by("-id").first())
