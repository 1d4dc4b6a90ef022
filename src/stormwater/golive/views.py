"""The Collector's go-live page (issue 32): upload the old system's export of open bills and its control totals →
the dry run's report (control totals beside what the conversion creates, by fiscal year and bucket; the aging as
of the cut-over; every refused row and field) → apply, only the files that were checked, only when they agree."""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.imports.pipeline import ImportRefused
from stormwater.web.forms import FieldRefusal
from stormwater.web.postdata import date_value

from .balances import balances_convert
from .export import BUCKETS

MAX_UPLOAD = 50 * 1024 * 1024
ERR_NO_FILE = "Choose the old system's export of open bills (CSV or Excel)."
ERR_TOO_BIG = "{name}: over 50 MB; a town's open bills are far smaller — is this the right file?"
ERR_GONE = "The checked files are no longer here: upload them again."
SUFFIXES = {".csv", ".txt", ".xlsx", ".xlsm"}


def _held(checksum: str, suffix: str) -> Path:
    """Where a checked upload waits for its "apply" (named by its SHA-256: the file applied is the one checked)."""
    return Path(settings.MEDIA_ROOT) / "golive" / f"{checksum}{suffix}"


def _keep(f, errors: list[str], what: str) -> tuple[str, str] | None:
    if f.size > MAX_UPLOAD:
        errors.append(ERR_TOO_BIG.format(name=f.name))
        return None
    suffix = Path(f.name).suffix.lower()
    if suffix not in SUFFIXES:
        errors.append(f"{f.name}: the {what} must be a CSV or an Excel (.xlsx) file")
        return None
    data = f.read()
    checksum = hashlib.sha256(data).hexdigest()
    _held(checksum, suffix).parent.mkdir(parents=True, exist_ok=True)
    _held(checksum, suffix).write_bytes(data)
    return f"{checksum}{suffix}", Path(f.name).name


def _held_ref(value: str) -> Path | None:
    m = re.fullmatch(r"([0-9a-f]{64})(\.[a-z]{3,4})", value or "")
    if not m or m.group(2) not in SUFFIXES:
        return None
    p = _held(m.group(1), m.group(2))
    return p if p.exists() else None


@require_perm(Perm.COLLECT)
def golive_balances(request):
    ctx: dict = {"errors": [], "result": None, "refused": None, "buckets": BUCKETS}
    if request.method == "POST":
        apply = request.POST.get("action") == "apply"
        try:
            as_of = date_value(request.POST.get("as_of"), field="as_of")
        except FieldRefusal as e:
            ctx["date_error"] = f"Cut-over date: {e}"
            as_of = None
        ctx["as_of_text"] = request.POST.get("as_of", "")[:40]
        held = {}
        for what, fld in (("export", "file"), ("control totals", "control")):
            f = request.FILES.get(fld)
            if f is not None and not apply:
                kept = _keep(f, ctx["errors"], what)
                if kept:
                    held[fld] = kept
            elif request.POST.get(f"{fld}_ref"):
                if _held_ref(request.POST[f"{fld}_ref"]) is None:
                    ctx["errors"].append(ERR_GONE)
                else:
                    held[fld] = (request.POST[f"{fld}_ref"], request.POST.get(f"{fld}_name", fld)[:200])
        if "file" not in held and not ctx["errors"]:
            ctx["errors"].append(ERR_NO_FILE)
        if not ctx["errors"] and not ctx.get("date_error"):
            export_ref, name = held["file"]
            control = held.get("control")
            try:
                res = balances_convert(
                    path=_held_ref(export_ref), source=name, as_of=as_of,
                    control_path=_held_ref(control[0]) if control else None,
                    control_source=control[1] if control else None, apply=apply,
                    accept_differences=apply and request.POST.get("accept_differences") == "yes",
                    acting_user=request.user)
            except ImportRefused as e:
                ctx["refused"] = {"error": str(e)[:600], "problems": [p.as_json() for p in e.problems]}
            else:
                if apply:
                    messages.success(request, f"{name}: converted as of {as_of} — "
                                     + ", ".join(f"{k} {v}" for k, v in res.created.items())
                                     + f"; {res.unchanged} converted before, unchanged.")
                    return redirect("golive_balances")
                ctx |= {"result": res.as_json(), "held": held, "as_of": as_of,
                        "rows": _rows(res.control, res.converted)}
    bad = ctx["errors"] or ctx["refused"] or ctx.get("date_error")
    return render(request, "golive/balances.html", ctx, status=400 if bad else 200)


def _rows(control: dict, converted: dict) -> list[dict]:
    """The reconciliation table: one row per fiscal year and bucket, the old system's figure beside the books'."""
    out = []
    for k in sorted(set(control) | set(converted)):
        for b in BUCKETS:
            c, v = control.get(k, {}).get(b), converted.get(k, {}).get(b)
            out.append({"fiscal_year": k or "no fiscal year", "bucket": b, "old": "—" if c is None else c,
                        "new": "—" if v is None else v, "agrees": str(c) == str(v)})
    return out
