"""JSON API of the imports app (issue 20)."""
from __future__ import annotations

import tempfile
from pathlib import Path

from django.http import JsonResponse
from django.views.decorators.http import require_GET, require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.web.jsonapi import BadInput, api_errors, int_field, parse_json

from .selectors import import_records
from .services import water_sewer_accounts_import

_errors = api_errors()
MAX_BODY = 20 * 1024 * 1024


@require_POST
@require_perm(Perm.PARCEL_EDIT, api=True)
@_errors
def api_water_sewer_import(request):
    """POST the water/sewer account CSV (multipart field "file", or the CSV as the body; ``?dry_run=1`` to check
    only). → 200 with the changes (dry run or nothing to change), 201 applied; a refused file → 400 with every
    finding."""
    if request.content_type == "multipart/form-data":
        f = request.FILES.get("file")
        if f is None:
            raise BadInput("file: required (the CSV as the multipart field \"file\", or as the body)")
        if f.size > MAX_BODY:
            raise BadInput("file: over 20 MB")
        content, name = f.read(), Path(f.name).name
    else:
        content, name = request.body, Path(request.headers.get("X-Filename", "upload.csv")).name
    dry = _dry_run(request)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / (name or "upload.csv")
        path.write_bytes(content)
        res = water_sewer_accounts_import(path=path, source=name, acting_user=request.user,
                                          dry_run=dry)
    out = res.as_json()
    return JsonResponse(out, status=201 if out["outcome"] == "applied" else 200)


def _dry_run(request) -> bool:
    dry = request.GET.get("dry_run", "")
    if dry not in ("", "0", "1", "true", "false"):
        raise BadInput("dry_run: 1 or 0")
    return dry in ("1", "true")


def _upload(request, what: str) -> tuple[bytes, str]:
    f = request.FILES.get("file")
    if f is None:
        raise BadInput(f"file: required (the {what} as the multipart field \"file\")")
    if f.size > MAX_BODY:
        raise BadInput("file: over 20 MB")
    return f.read(), Path(f.name).name or "upload.csv"


@require_GET
@require_perm(Perm.PARCEL_EDIT, api=True)
@_errors
def api_import_records(request):
    """The last imports (newest first): kind, file, outcome, checksums, counts. ?kind=…&limit=… (1–500)."""
    kind = request.GET.get("kind", "")[:40] or None
    limit = int_field(request.GET, "limit", 50, lo=1, hi=500)
    return JsonResponse({"imports": [
        {"id": r.pk, "kind": r.kind, "source": r.source, "outcome": r.outcome, "checksum": r.checksum,
         "content_checksum": r.content_checksum, "counts": r.counts, "created_at": r.created_at.isoformat(),
         "by": r.created_by.username if r.created_by else None} for r in import_records(kind=kind, limit=limit)]})


@require_POST
@require_perm(Perm.GIS_IMPORT, api=True)
@_errors
def api_assessor_import(request):
    """POST assessor records (multipart: ``file`` — CSV or .xlsx — and ``mapping``, a JSON object target → column
    names, e.g. {"parcel_id": ["PID"], "address": ["ADDR"], "land_use_code": ["LUC"], "_lot_unit": "acres"}; without
    it a known schema maps itself). ``?dry_run=1`` lists the changes only. → 201 applied / 200 dry run or nothing
    to change; a refused file → 400 with every finding (row and column)."""
    from stormwater.gis import assessor
    from stormwater.gis.services import assessor_file_import

    content, name = _upload(request, "assessor CSV or Excel file")
    if Path(name).suffix.lower() not in (".csv", ".txt", ".xlsx", ".xlsm"):
        raise BadInput("file: a .csv, .txt or .xlsx file")
    raw = request.POST.get("mapping", "")
    mapping = _mapping(parse_json(raw)) if raw.strip() else None
    dry = _dry_run(request)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / name
        path.write_bytes(content)
        if mapping is None:
            mapping = assessor.guess_mapping(assessor.read_source(str(path)).columns)
            if not mapping:
                raise BadInput("mapping: required (the file's columns are not a known schema)")
        table, res = assessor_file_import(path=str(path), layer=None, mapping=mapping, source=name,
                                          acting_user=request.user, dry_run=dry)
    out = {"rows": len(table.rows), **res.as_json()}
    changed = not dry and (res.created or res.updated or res.owners_created)
    return JsonResponse(out, status=201 if changed else 200)


def _mapping(m) -> dict:
    from stormwater.gis.assessor import LOT_UNITS, TARGETS

    if not isinstance(m, dict):
        raise BadInput("mapping: a JSON object of target → [column, …]")
    out: dict = {}
    for k, v in m.items():
        if k == "_lot_unit":
            if v not in LOT_UNITS:
                raise BadInput(f"mapping._lot_unit: one of {', '.join(LOT_UNITS)}")
            out[k] = v
            continue
        if k not in TARGETS:
            raise BadInput(f"mapping.{k}: not a target (targets: {', '.join(TARGETS)}, _lot_unit)")
        cols = [v] if isinstance(v, str) else v
        if not isinstance(cols, list) or not all(isinstance(c, str) and 0 < len(c) <= 200 for c in cols) or len(cols) > 20:
            raise BadInput(f"mapping.{k}: a column name or a list of column names")
        out[k] = cols
    return out
