"""Paging of a report's rows on a page: the page asked for (``?page=``) and the query string that keeps
the report's other parameters (an as-of date …) on the pager's links (web/pager.html)."""
from __future__ import annotations

from django.core.paginator import Paginator

from stormwater.web.postdata import page_value

REPORT_PAGE_SIZE = 100


def paginate(request, rows, per_page: int = REPORT_PAGE_SIZE) -> dict:
    """``rows``: anything Django's Paginator pages (a queryset, a list, a ``PositionReport``).
    → {"page": the Page, "pager_query": the GET parameters other than page, urlencoded}."""
    if hasattr(rows, "prefetch"):  # a report that reads a page and its totals in one statement
        n = page_value(request.GET.get("page"), 1)
        rows.prefetch((n - 1) * per_page, n * per_page)
    page = Paginator(rows, per_page).get_page(request.GET.get("page"))
    q = request.GET.copy()
    q.pop("page", None)
    return {"page": page, "pager_query": q.urlencode()}
