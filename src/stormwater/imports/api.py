"""JSON API of the imports app (issue 20)."""
from __future__ import annotations

import tempfile
from pathlib import Path

from django.http import JsonResponse
from django.views.decorators.http import require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.web.jsonapi import BadInput, api_errors

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
    dry = request.GET.get("dry_run", "")
    if dry not in ("", "0", "1", "true", "false"):
        raise BadInput("dry_run: 1 or 0")
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / (name or "upload.csv")
        path.write_bytes(content)
        res = water_sewer_accounts_import(path=path, source=name, acting_user=request.user,
                                          dry_run=dry in ("1", "true"))
    out = res.as_json()
    return JsonResponse(out, status=201 if out["outcome"] == "applied" else 200)
