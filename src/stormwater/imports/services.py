"""Writes of the imports app: the import record (issue 20), one per import, in the import's own transaction."""
from __future__ import annotations

from pathlib import Path

from stormwater.audit.services import actor_or_none, audit_record

from .models import ImportRecord
from .pipeline import file_checksum


def import_record_create(*, kind: str, source: str, path: str | Path | None, content_checksum: str, outcome: str,
                         counts: dict, report: dict, acting_user) -> ImportRecord:
    """Record one import (call inside the import's transaction, so the record and the changes land together).
    Also used for a refused file (outside any transaction: nothing else is written)."""
    rec = ImportRecord.objects.create(
        kind=kind, source=str(source)[:300], checksum=file_checksum(path) if path and Path(path).exists() else "",
        content_checksum=content_checksum, outcome=ImportRecord.Outcome(outcome), counts=counts, report=report,
        created_by=actor_or_none(acting_user))
    audit_record(actor=acting_user, action=f"import.{outcome}", obj=rec, why=str(source)[:200],
                 data={"kind": kind, "counts": counts, "checksum": rec.checksum})
    return rec
