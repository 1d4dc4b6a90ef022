"""Old case numbers keep working (issue 16): a page or API address that names a case by a number it had before
it was renumbered (``CaseNumberAlias``) answers a permanent redirect to the same address with the case's number
today — bookmarks, printed letters and e-mailed links stay good. Only GET and HEAD requests that would otherwise
end in 404 are looked at (one query, only then); a form posted to an old address is not replayed."""
from __future__ import annotations

import re
from urllib.parse import quote

from django.http import HttpResponsePermanentRedirect

# A case number: prefix, year, sequence (cases.services.case_open: PREFIX-YYYY-NNNN).
CASE_NUMBER = re.compile(r"^[A-Z]{2,6}-\d{4}-\d{3,}$")


def current_path(path: str) -> str | None:
    """``path`` with every old case number in it replaced by the case's number today; None if it has none."""
    from .models import CaseNumberAlias

    parts = path.split("/")
    olds = [p for p in parts if CASE_NUMBER.match(p)]
    if not olds:
        return None
    found = dict(CaseNumberAlias.objects.filter(old_number__in=olds).values_list("old_number", "case__number"))
    if not found:
        return None
    return "/".join(found.get(p, p) for p in parts)


class CaseNumberRedirectMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code == 404 and request.method in ("GET", "HEAD"):
            new = current_path(request.path)
            if new:
                query = request.META.get("QUERY_STRING", "")
                return HttpResponsePermanentRedirect(quote(new) + (f"?{query}" if query else ""))
        return response
