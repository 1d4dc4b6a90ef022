"""Web pages of the imports app (issue 20): the record of every import; the water/sewer account import
(upload → dry run listing every finding and change → apply, all or nothing)."""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm

from .pipeline import ImportRefused
from .selectors import import_records
from .services import water_sewer_accounts_import

MAX_UPLOAD = 20 * 1024 * 1024
ERR_NO_FILE = "Choose the CSV file to import."
ERR_TOO_BIG = "{name}: over 20 MB; a town's water/sewer account list is far smaller — is this the right file?"
ERR_GONE = "The checked file is no longer here: upload it again."


def _held(checksum: str) -> Path:
    """Where a checked upload waits for its "apply" (named by its SHA-256, so the file applied is the one checked)."""
    return Path(settings.MEDIA_ROOT) / "imports" / f"{checksum}.csv"


@require_perm(Perm.PARCEL_EDIT)
def imports_home(request):
    return render(request, "imports/home.html", {"records": import_records(limit=100)})


@require_perm(Perm.PARCEL_EDIT)
def water_sewer_import(request):
    ctx: dict = {"errors": [], "result": None, "refused": None}
    if request.method == "POST":
        checksum, name = request.POST.get("checksum", ""), request.POST.get("name", "upload.csv")[:200]
        f = request.FILES.get("file")
        if f is not None:
            if f.size > MAX_UPLOAD:
                ctx["errors"].append(ERR_TOO_BIG.format(name=f.name))
            else:
                data = f.read()
                checksum, name = hashlib.sha256(data).hexdigest(), Path(f.name).name
                _held(checksum).parent.mkdir(parents=True, exist_ok=True)
                _held(checksum).write_bytes(data)
        elif not re.fullmatch(r"[0-9a-f]{64}", checksum):
            ctx["errors"].append(ERR_NO_FILE)
        elif not _held(checksum).exists():
            ctx["errors"].append(ERR_GONE)
        if not ctx["errors"]:
            apply = request.POST.get("action") == "apply" and f is None
            try:
                res = water_sewer_accounts_import(path=_held(checksum), source=name, acting_user=request.user,
                                                  dry_run=not apply)
            except ImportRefused as e:
                ctx["refused"] = {"error": str(e), "problems": [p.as_json() for p in e.problems]}
            else:
                if apply:
                    _held(checksum).unlink(missing_ok=True)
                    messages.success(request, f"{name}: {len(res.changes)} parcel(s) changed, {res.unchanged} "
                                              "unchanged." if res.changes else f"{name}: nothing to change.")
                    return redirect("imports_home")
                ctx |= {"result": res.as_json(), "checksum": checksum, "name": name}
    # A refused file (issue 16 "Forms"): 400, the error tied to the file input (which a browser never refills).
    return render(request, "imports/water_sewer.html", ctx, status=400 if ctx["errors"] or ctx["refused"] else 200)
