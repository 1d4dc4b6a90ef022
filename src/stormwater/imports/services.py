"""Writes of the imports app: the import record (issue 20), one per import, in the import's own transaction;
the water/sewer account import."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction

from stormwater.audit.services import actor_or_none, audit_record
from stormwater.parcels.models import Parcel

from .models import ImportRecord
from .pipeline import ImportRefused, Problem, content_checksum, error, file_checksum, refuse_on_errors
from .water_sewer import read_accounts


def import_record_create(*, kind: str, source: str, path: str | Path | None, content_checksum: str, outcome: str,
                         counts: dict, report: dict, acting_user, checksum: str = "") -> ImportRecord:
    """Record one import (call inside the import's transaction, so the record and the changes land together).
    Also used for a refused file (outside any transaction: nothing else is written). ``checksum``: the file's
    SHA-256 when it was received as bytes (no ``path``)."""
    rec = ImportRecord.objects.create(
        kind=kind, source=str(source)[:300],
        checksum=file_checksum(path) if path and Path(path).exists() else checksum,
        content_checksum=content_checksum, outcome=ImportRecord.Outcome(outcome), counts=counts, report=report,
        created_by=actor_or_none(acting_user))
    audit_record(actor=acting_user, action=f"import.{outcome}", obj=rec, why=str(source)[:200],
                 data={"kind": kind, "counts": counts, "checksum": rec.checksum})
    return rec


@dataclass
class AccountsResult:
    rows: int
    changes: list[dict] = field(default_factory=list)  # {"parcel_id", "from", "to"}
    unchanged: int = 0
    problems: list[Problem] = field(default_factory=list)
    dry_run: bool = False
    record: ImportRecord | None = None

    def as_json(self) -> dict:
        return {"rows": self.rows, "parcels_changed": len(self.changes), "unchanged": self.unchanged,
                "dry_run": self.dry_run, "outcome": self.record.outcome if self.record else None,
                "import_record": self.record.pk if self.record else None,
                "changes": self.changes, "problems": [p.as_json() for p in self.problems]}


def water_sewer_accounts_import(*, path: str | Path, source: str, acting_user, dry_run: bool = False) -> AccountsResult:
    """Tie parcels to Town water/sewer accounts from a file (issue 20; format: ``imports.water_sewer``), through
    the pipeline: read and validate the whole file; parcel ids the Assessors' records do not have are errors; any
    error refuses the file before a write (recorded, not in a dry run). Applied in one transaction: each changed
    parcel saved with one audit row (``parcel.water_sewer_account``), and one import record. The same content again
    changes nothing (outcome "unchanged")."""
    try:
        rows, problems = read_accounts(path, name=source)
        known = {p.parcel_id: p for p in Parcel.objects.filter(parcel_id__in=[r.parcel_id for r in rows])
                 .only("pk", "parcel_id", "water_sewer_account")}
        unknown = [f"row {r.row} (parcel_id): {r.parcel_id}" for r in rows if r.parcel_id not in known]
        if unknown:
            problems.append(error("unknown_parcel", source, "parcel ids not in the Assessors' records (import the "
                                  "assessor records first, or correct the id): nothing imported", unknown))
        refuse_on_errors(source, problems)
    except ImportRefused as e:
        if not dry_run:
            import_record_create(kind="water_sewer_accounts", source=source, path=path, content_checksum="",
                                 outcome="refused", counts={}, report=e.json_detail(), acting_user=acting_user)
        raise
    res = AccountsResult(rows=len(rows), problems=problems, dry_run=dry_run)
    changed = []
    for r in rows:
        p = known[r.parcel_id]
        if p.water_sewer_account == r.account:
            res.unchanged += 1
        else:
            res.changes.append({"parcel_id": r.parcel_id, "from": p.water_sewer_account, "to": r.account})
            changed.append((p, r.account))
    if dry_run:
        return res
    with transaction.atomic():
        for p, account in changed:
            old = p.water_sewer_account
            p.water_sewer_account = account
            p.save(update_fields=["water_sewer_account"])
            audit_record(actor=acting_user, action="parcel.water_sewer_account", obj=p,
                         why=f"Water/sewer account import: {source}", data={"from": old, "to": account})
        res.record = import_record_create(
            kind="water_sewer_accounts", source=source, path=path,
            content_checksum=content_checksum(sorted((r.parcel_id, r.account) for r in rows)),
            outcome="applied" if changed else "unchanged",
            counts={"rows": len(rows), "parcels_changed": len(changed), "unchanged": res.unchanged},
            report={"changes": res.changes[:500], "problems": [p.as_json() for p in problems]},
            acting_user=acting_user)
    return res
