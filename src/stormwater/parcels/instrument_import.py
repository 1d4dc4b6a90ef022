"""A property association's unit shares from a file (Ch. 295 Art. IV ¶G; issue 17), through the import pipeline
(``stormwater.imports.pipeline``: read with encoding detection → validate the whole file → dry run → apply all or
nothing → import record).

The file (CSV, any encoding the pipeline reads; header names case-insensitive), one row per unit:
    unit_parcel_id,share_percent
    04-01-1-101,8.3334
The instrument's own facts (Registry reference, recorded and effective dates, the association's name for a first
instrument) come with the upload (page form, CLI options, API fields). Refused, naming row and column: a missing
column, and every refusal of ``parcels.services.check_instrument`` (the 100 % check). The same instrument again
records nothing (outcome "unchanged")."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from django.db import transaction

from stormwater.imports.pipeline import ImportRefused, Problem, content_checksum, error, read_csv, refuse_on_errors
from stormwater.imports.services import import_record_create

from .models import AssociationInstrument, Parcel
from .services import AssociationRefused, association_check, association_record

KIND = "association_instrument"
UNIT_COLUMN, SHARE_COLUMN = "unit_parcel_id", "share_percent"


@dataclass
class InstrumentImport:
    preview: dict
    problems: list[Problem] = field(default_factory=list)
    dry_run: bool = False
    instrument: AssociationInstrument | None = None
    outcome: str = ""
    record_id: int | None = None

    def as_json(self) -> dict:
        return {"dry_run": self.dry_run, "outcome": self.outcome or None, "import_record": self.record_id,
                "instrument": self.instrument.pk if self.instrument else None, **self.preview,
                "problems": [p.as_json() for p in self.problems]}


def _as_problems(source: str, e: AssociationRefused) -> list[Problem]:
    """The service's refusals as the pipeline's findings: ids name the row and the column."""
    out = []
    for p in e.problems:
        where = f"row {p['row']} ({p['field']})" if p.get("row") is not None else p["field"]
        out.append(error("refused", source, f"{where}: {p['message']}", [where]))
    return out


def read_shares(path: str | Path, *, source: str) -> tuple[list[dict], list[Problem]]:
    """The file's rows → [{"row", "unit_parcel_id", "share_percent"}], findings (no database)."""
    t = read_csv(path, name=source)
    problems = list(t.problems)
    low = {c.strip().lower(): c for c in t.columns}
    ucol, scol = low.get(UNIT_COLUMN), low.get(SHARE_COLUMN)
    if ucol is None or scol is None:
        missing = [n for n, c in ((UNIT_COLUMN, ucol), (SHARE_COLUMN, scol)) if c is None]
        problems.append(error("missing_column", source, f"the file has no column {' or '.join(missing)} (its "
                              f"columns: {', '.join(t.columns) or 'none'}); the header must name {UNIT_COLUMN} and "
                              f"{SHARE_COLUMN}"))
        return [], problems
    return ([{"row": n, "unit_parcel_id": r[ucol], "share_percent": r[scol]} for n, r in zip(t.row_numbers, t.rows)],
            problems)


def association_import(*, parcel: Parcel, path: str | Path, source: str, reference: str, recorded_on: date | None,
                       effective_on: date | None = None, name: str = "", note: str = "", acting_user,
                       dry_run: bool = False) -> InstrumentImport:
    """Check the whole file and the instrument (``association_check``); a dry run stops there with what would be
    recorded. Applied: ``association_record`` and the import record in one transaction. A refused file raises
    ``ImportRefused`` with every finding (recorded as refused, except in a dry run); nothing changed."""
    args = {"parcel": parcel, "reference": reference, "recorded_on": recorded_on, "effective_on": effective_on,
            "name": name, "note": note}
    try:
        shares, problems = read_shares(path, source=source)
        refuse_on_errors(source, problems)
        try:
            checked = association_check(shares=shares, **args)
        except AssociationRefused as e:
            problems += _as_problems(source, e)
            refuse_on_errors(source, problems)
            raise
    except ImportRefused as e:
        if not dry_run:
            import_record_create(kind=KIND, source=source, path=path, content_checksum="", outcome="refused",
                                 counts={}, report=e.json_detail() | {"parcel_id": parcel.parcel_id},
                                 acting_user=acting_user)
        raise
    res = InstrumentImport(preview=checked.as_json(), problems=problems, dry_run=dry_run)
    if dry_run:
        return res
    with transaction.atomic():
        inst, created = association_record(shares=shares, acting_user=acting_user, **args)
        res.instrument, res.outcome = inst, ("applied" if created else "unchanged")
        rec = import_record_create(
            kind=KIND, source=source, path=path, outcome=res.outcome,
            content_checksum=content_checksum({"parcel": parcel.parcel_id, "shares": res.preview["shares"]}),
            counts={"units": len(shares), "instruments_created": int(created)},
            report={"parcel_id": parcel.parcel_id, "instrument": inst.pk, "problems": [p.as_json() for p in problems]},
            acting_user=acting_user)
        res.record_id = rec.pk
    return res
