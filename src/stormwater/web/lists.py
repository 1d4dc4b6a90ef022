"""One list mechanism for every list page (issue 16, "lists that beat a spreadsheet").

A list page is a ``ListPage``: a django-filter ``FilterSet`` (search and the filters that fit the list), a
django-tables2 ``Table`` (the columns, which of them sort, how each cell shows and exports), the totals over
every matching row, and the records it starts from — always the app's selector that filters by the user
(``parcels_for_user``, ``bills_for_user`` …), so an owner sees only their own records through the same page.

Everything a person sets is in the URL (``?q=…&status=…&sort=-due&page=3&per_page=100``), so a list can be
bookmarked and shared; the CSV and Excel downloads are the same URL with ``export=csv`` / ``export=xlsx``:
the same filters and the same order, every matching row (not just the page), streamed — a CSV row by row, an
Excel workbook in openpyxl's write-only mode — and every cell through ``web.files.safe_cell`` (no formulas).
Nothing is cut silently: the caption says how many rows match, the pager pages through all of them, and the
totals (count and money) are summed by the database over all matching rows, not the page.

The page renders in a constant number of queries: one aggregate (count and totals), one for the page's rows
(plus the table's own ``prefetch_related``); each list has a query-count test at 10 and 200 records.

Templates (small includes the look of the site can restyle): ``web/list/list.html`` puts together
``filters.html`` (labelled filters and "Sort by"), ``table.html`` (caption with the count, sortable column
headers as links with ``aria-sort``, cells with ``data-label`` so a table stacks on a phone, a footer row of
totals), ``pager.html`` and ``exports.html``; the phone layout is in ``static/stormwater/lists.css``.
"""
from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import django_filters
import django_tables2 as tables
from django import forms
from django.core.paginator import Paginator
from django.db.models import Count, DecimalField, Q, QuerySet
from django.template.defaultfilters import date as date_filter
from django.utils import timezone
from django.utils.functional import cached_property
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django_tables2.data import TableData
from django_tables2.rows import BoundRow
from django_tables2.utils import call_with_appropriate

from stormwater.web.listexports import (EXCEL_MAX_ROWS, EXPORT_FORMATS, EXPORT_HERE,  # noqa: F401 (named here too)
                                        LIST_EXPORT_JOB_ROWS, ListExports, plain, set_large_export)
from stormwater.web.listcolumns import amount_range_filters, choose_columns  # noqa: F401 (named here too)
from stormwater.web.templatetags.sw import DAY, DAYTIME, WEEKDAY
from stormwater.web.postdata import page_value

PER_PAGE = 50
CENT = Decimal("0.01")
PER_PAGE_CHOICES = (25, 50, 100, 200)
# How a date shows in a list cell: the one date form of every page (web/templatetags/sw.py `day`/`daytime`).
DATE_FORMAT = DAY  # Dec 2, 2026
DATETIME_FORMAT = DAYTIME  # Dec 2, 2026, 3:05 PM
DUE_FORMAT = WEEKDAY  # a deadline, with its weekday: Wed, Dec 2, 2026


# --- columns ------------------------------------------------------------------------------------------------

def money_text(value) -> str:
    from stormwater.web.templatetags.sw import usd

    return usd(value)  # the one money form: $1,234.50, -$12.50


class MoneyColumn(tables.Column):
    """Dollars: shown as $1,234.50, right-aligned; exported as a number (Decimal)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("attrs", {"th": {"class": "num"}, "td": {"class": "num"}, "tf": {"class": "num"}})
        super().__init__(*args, **kwargs)

    def render(self, value):
        return money_text(value)

    def value(self, value):
        return Decimal(value).quantize(CENT) if value is not None else None


class NumberColumn(tables.Column):
    """A count or a measure: right-aligned, exported as a number."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("attrs", {"th": {"class": "num"}, "td": {"class": "num"}, "tf": {"class": "num"}})
        super().__init__(*args, **kwargs)

    def value(self, value):
        return value


class DateColumn(tables.Column):
    """A date (or the local date of a timestamp when ``time=False``): one format on screen, a real date in a
    spreadsheet."""

    def __init__(self, *args, time: bool = False, **kwargs):
        self.time = time
        kwargs.setdefault("attrs", {"th": {"class": "date"}, "td": {"class": "date"}})
        super().__init__(*args, **kwargs)

    def _local(self, value):
        if isinstance(value, datetime) and timezone.is_aware(value):
            value = timezone.localtime(value)
        return value if self.time or not isinstance(value, datetime) else value.date()

    def render(self, value):
        return date_filter(self._local(value), DATETIME_FORMAT if self.time and isinstance(value, datetime)
                           else DATE_FORMAT)

    def value(self, value):
        v = self._local(value)
        return v.replace(tzinfo=None) if isinstance(v, datetime) else v


class BadgeColumn(tables.Column):
    """A status shown as a badge (``bad`` when ``is_bad(record)``); exported as its text."""

    def __init__(self, *args, is_bad=None, **kwargs):
        self.is_bad = is_bad
        super().__init__(*args, **kwargs)

    def render(self, value, record):
        bad = self.is_bad(record) if self.is_bad else False
        return format_html('<span class="badge{}">{}</span>', " bad" if bad else "", value)

    def value(self, value):
        return str(value)


class ListTable(tables.Table):
    """The base of every list's table: sortable by default, cells from the accessor, no row counter. A cell that
    posts (revoke, settle …) builds its form with ``post_button`` (the CSRF token from ``self.request``)."""

    class Meta:
        orderable = True
        attrs = {"class": "list"}

    def post_button(self, action: str, label: str, *, hidden: dict | None = None, aria_label: str = "",
                    primary: bool = False):
        from django.middleware.csrf import get_token

        fields = format_html('<input type="hidden" name="csrfmiddlewaretoken" value="{}">', get_token(self.request))
        for k, v in (hidden or {}).items():
            fields += format_html('<input type="hidden" name="{}" value="{}">', k, v)
        return format_html('<form method="post" action="{}" class="list-act">{}<button type="submit"{}{}>{}</button>'
                           '</form>', action, fields, mark_safe(' class="primary"') if primary else "",
                           format_html(' aria-label="{}"', aria_label) if aria_label else "", label)


class ActionsColumn(tables.Column):
    """A column of buttons (never sorted, never exported); the table's ``render_<name>`` draws them."""

    def __init__(self, verbose_name="Act", **kwargs):
        kwargs.update(empty_values=(), orderable=False, exclude_from_export=True)
        super().__init__(verbose_name, **kwargs)


# --- filters ------------------------------------------------------------------------------------------------

class SearchFilter(django_filters.CharFilter):
    """One text box searching several fields at once (any field contains the text, case-insensitive); each
    word must match somewhere, so "elm 12" finds "12 Elm St"."""

    def __init__(self, *, fields, **kwargs):
        self.fields = tuple(fields)
        kwargs.setdefault("label", "Search")
        kwargs.setdefault("widget", forms.TextInput(attrs={"type": "search", "size": 30}))
        super().__init__(method=self._search, **kwargs)

    def _search(self, queryset, name, value):
        for word in (value or "").split()[:8]:
            q = Q()
            for f in self.fields:
                q |= Q(**{f"{f}__icontains": word})
            queryset = queryset.filter(q)
        return queryset


# A balance (or any money annotation) compared with zero: SQLite sums decimals as floats (26.58 + 26.58 - 53.16 may
# be 4e-15), so "owes" and "in credit" mean past half a cent either way (utility.balances makes the annotations).
MONEY_FIELD = DecimalField(max_digits=14, decimal_places=2)
HALF_CENT = Decimal("0.005")
BALANCE_CHOICES = [("owes", "Owes"), ("credit", "In credit"), ("zero", "Zero")]


def balance_filter(qs, value: str, field: str = "balance"):
    """``owes`` / ``credit`` / ``zero`` on a balance annotation, half a cent either way."""
    if value == "owes":
        return qs.filter(**{f"{field}__gt": HALF_CENT})
    if value == "credit":
        return qs.filter(**{f"{field}__lt": -HALF_CENT})
    return qs.filter(**{f"{field}__gte": -HALF_CENT, f"{field}__lte": HALF_CENT})


def date_filter_field(field_name: str, lookup: str, label: str, **kwargs) -> django_filters.DateFilter:
    """A date bound (``gte``/``lte``) with the browser's date picker and its own label."""
    return django_filters.DateFilter(field_name=field_name, lookup_expr=lookup, label=label,
                                     widget=forms.DateInput(attrs={"type": "date"}), **kwargs)


class ListFilter(django_filters.FilterSet):
    """The base of every list's filters. Subclasses declare ``q = SearchFilter(fields=[…])`` and the rest; a
    choice offers "Any" first (``choice_filter``)."""

    def drop(self, *names: str) -> None:
        """Filters this user does not get (e.g. balances for an owner)."""
        for n in names:
            self.filters.pop(n, None)
            self.form.fields.pop(n, None)


def choice_filter(field_name: str | None, label: str, choices, **kwargs) -> django_filters.ChoiceFilter:
    """A choice with "Any" first; ``method=`` for a choice that is not one field's value."""
    if field_name is not None:
        kwargs["field_name"] = field_name
    return django_filters.ChoiceFilter(label=label, choices=choices, empty_label="Any", **kwargs)


# --- the page -----------------------------------------------------------------------------------------------

class _CountedPaginator(Paginator):
    """A paginator told the count (from the page's one aggregate query) instead of asking again."""

    def __init__(self, *args, count: int, **kwargs):
        super().__init__(*args, **kwargs)
        self._known = count

    @cached_property
    def count(self):
        return self._known


class ListPage(ListExports):
    """One list: declare ``table_class``, ``filter_class``, ``noun`` and, where it fits, ``totals`` and
    ``default_sort``; build it with the request and the selector's queryset; ``export_response()`` answers a
    download (or None); render with ``{% include "web/list/list.html" with lst=… %}``."""

    table_class: type[ListTable]
    filter_class: type[ListFilter]
    noun: tuple[str, str] = ("record", "records")
    export_name: str = "records"
    # Column name → aggregate over every matching row (Sum("amount") …). A total of an annotation that is a subquery
    # (a balance) repeats the expression (Sum(ledger_sum(…))) instead of naming the annotation: Django 5.2 then
    # wraps the query and leaves the annotation out of the inner SELECT (SQLite summed the string 'balance' to 0).
    totals: dict = {}
    default_sort: tuple[str, ...] = ()  # column names ("-due") when the URL names none
    per_page: int = PER_PAGE
    prefix: str = ""  # a second list on one page names its parameters "<prefix>-q", "<prefix>-sort" …

    def __init__(self, request, queryset: QuerySet, *, prefix: str | None = None, **filter_kwargs):
        self.request = request
        if prefix is not None:
            self.prefix = prefix
        self.filterset = self.filter_class(request.GET, queryset=queryset, request=request,
                                           prefix=self.prefix or None, **filter_kwargs)
        self.table = self.table_class(self.filterset.qs)
        self.table.request = request
        self.column_choice = choose_columns(self.table, request.GET.getlist(self.param("cols")))
        asked = [s for s in request.GET.getlist(self.param("sort")) if s]
        self.table.order_by = asked or self.default_sort or None
        self.queryset = self._stable(self.table.data.data)
        self.table.data.data = self.queryset  # the page and the export read the same ordered rows

    def param(self, name: str) -> str:
        return f"{self.prefix}-{name}" if self.prefix else name

    @staticmethod
    def _stable(qs: QuerySet) -> QuerySet:
        """The order asked for, then the primary key: rows never swap between pages."""
        order = list(qs.query.order_by) or list(qs.query.get_meta().ordering or ())
        if not any(str(o).lstrip("-") in ("pk", "id") for o in order):
            order.append("pk")
        return qs.order_by(*order)

    # what the page shows -------------------------------------------------------------------------------------
    @cached_property
    def summary(self) -> dict:
        """``count`` and each total, over every matching row: one aggregate query."""
        out = self.queryset.order_by().aggregate(count=Count("pk"), **self.totals)
        return {k: (v if v is not None or k == "count" else Decimal("0.00")) for k, v in out.items()}

    @property
    def count(self) -> int:
        return self.summary["count"]

    def _page_asked(self) -> tuple[int, int]:
        """(rows per page, page number) as the URL asks them."""
        per = page_value(self.request.GET.get(self.param("per_page")), self.per_page)
        per = per if per in PER_PAGE_CHOICES else self.per_page
        return per, page_value(self.request.GET.get(self.param("page")), 1)

    @cached_property
    def page(self):
        per, n = self._page_asked()
        pages = max(1, -(-self.count // per))
        self.table.paginate(paginator_class=_CountedPaginator, per_page=per, page=min(n, pages), count=self.count)
        return self.table.page

    @property
    def rows(self):
        return self.page.object_list

    @property
    def columns(self):
        return list(self.table.columns)

    @cached_property
    def headers(self) -> list[dict]:
        out = []
        for col in self.table.columns:
            h = {"column": col, "label": col.header, "attrs": col.attrs.get("th", {}), "href": None,
                 "aria_sort": None, "mark": ""}
            if col.orderable:
                h["href"] = self.url(sort=str(col.order_by_alias.next), page=None)
                if col.is_ordered:
                    desc = col.order_by_alias.is_descending
                    h["aria_sort"] = "descending" if desc else "ascending"
                    h["mark"] = "▼" if desc else "▲"
            out.append(h)
        return out

    @cached_property
    def sort_choices(self) -> list[tuple[str, str]]:
        out = []
        for col in self.table.columns:
            if col.orderable:
                out += [(col.name, f"{col.header}, ascending"), (f"-{col.name}", f"{col.header}, descending")]
        return out

    MAIN_FILTERS = 2  # the search and the first filter stay in view; the others fold under "More filters"

    @cached_property
    def main_fields(self):
        return list(self.filterset.form)[:self.MAIN_FILTERS]

    @cached_property
    def more_fields(self):
        return list(self.filterset.form)[self.MAIN_FILTERS:]

    @property
    def more_in_use(self) -> int:
        return sum(1 for f in self.more_fields if f.value() not in (None, "", []))

    @property
    def cols_name(self) -> str:
        return self.param("cols")

    @property
    def sort_name(self) -> str:
        return self.param("sort")

    @property
    def sort_id(self) -> str:
        return f"{self.prefix or 'list'}-sort"

    @property
    def sort_value(self) -> str:
        return str(self.table.order_by[0]) if self.table.order_by else ""

    def _total_text(self, col, value):
        return call_with_appropriate(col.render, {"value": value}) if value is not None else ""

    @cached_property
    def footer(self) -> list | None:
        """The totals row, cell by cell under the table's columns; None where the list has no totals."""
        if not any(k != "count" for k in self.summary):
            return None
        return [{"label": col.header, "value": self._total_text(col, self.summary[col.name]),
                 "attrs": col.attrs.get("tf", {})} if col.name in self.summary else None for col in self.table.columns]

    @cached_property
    def total_texts(self) -> list[tuple[str, str]]:
        """(column header, total as shown) for the caption."""
        return [(str(self.table.columns[k].header), self._total_text(self.table.columns[k], v))
                for k, v in self.summary.items() if k != "count" and k in self.table.columns.names()
                and self.table.columns[k].visible]

    @property
    def noun_count(self) -> str:
        return f"{self.count:,} {self.noun[0] if self.count == 1 else self.noun[1]}"

    @property
    def filtered(self) -> bool:
        names = {self.filterset.form.add_prefix(n) for n in self.filterset.filters}
        return any(v for k, v in self.request.GET.items() if k in names)

    # URLs: the query kept, one thing changed ------------------------------------------------------------------
    def url(self, **changes) -> str:
        q = self.request.GET.copy()
        q.pop(self.param("export"), None)
        for k, v in changes.items():
            q.pop(self.param(k), None)
            if v not in (None, ""):
                q[self.param(k)] = str(v)
        s = q.urlencode()
        return f"?{s}" if s else self.request.path

    def _mine(self, key: str) -> bool:
        return key.startswith(f"{self.prefix}-") if self.prefix else "-" not in key

    @property
    def clear_url(self) -> str:
        """This list's filters, sort and page cleared; another list's on the same page kept."""
        q = self.request.GET.copy()
        for k in list(q):
            if self._mine(k):
                q.pop(k)
        s = q.urlencode()
        return f"{self.request.path}?{s}" if s else self.request.path

    def page_url(self, n: int) -> str:
        return self.url(page=n)

    @property
    def export_links(self) -> list[tuple[str, str, str]]:
        return [(fmt, label, self.url(export=fmt, page=None)) for fmt, label in EXPORT_FORMATS.items()]

    @property
    def kept_params(self) -> list[tuple[str, str]]:
        """Parameters the filter form does not show but must keep (per_page)."""
        keep = {self.param("per_page")} | {k for k in self.request.GET if not self._mine(k)}  # other lists' too
        return [(k, v) for k, vals in self.request.GET.lists() for v in vals if k in keep]

    @cached_property
    def pager(self) -> dict:
        p = self.page
        last = p.paginator.num_pages
        return {"number": p.number, "pages": last, "first_row": f"{p.start_index():,}" if self.count else "0",
                "last_row": f"{p.end_index():,}", "count": f"{self.count:,}",
                "first": self.url(page=None) if p.number > 1 else None,
                "previous": self.url(page=p.number - 1 if p.number > 2 else None) if p.has_previous() else None,
                "next": self.url(page=p.number + 1) if p.has_next() else None,
                "last": self.url(page=last) if p.number < last else None}

    @property
    def page_sizes(self) -> list[tuple[int, str, bool]]:
        return [(n, self.url(per_page=n, page=None), n == self.page.paginator.per_page) for n in PER_PAGE_CHOICES]

class ReportData(TableData):
    """django-tables2's data over a set-based report (e.g. ``receivables.positions.PositionReport``: raw SQL, a page
    and its totals in one statement, streamed exports) instead of a queryset: its length is the report's count,
    a slice is one page read by the report, and an order is the report's own SQL (``ReportListPage.sql_order``),
    never a sort in Python."""

    def __len__(self):
        return self.data.count()

    def order_by(self, aliases):
        keys = []
        for alias in aliases:
            name = alias.lstrip("-")
            sql = self.table.sql_order.get(name)
            if sql:
                keys.append(f"{sql} {'DESC' if alias.startswith('-') else 'ASC'}")
        self.data.order_by = ", ".join([*keys, *self.table.sql_tiebreak])


class ReportListPage(ListPage):
    """A list over a set-based report: the same filters, headers, pager, totals and downloads as every other
    list (the same templates), the rows and totals computed by the report's SQL (a constant number of queries:
    the totals, then the page). The filter set runs over ``queryset`` (e.g. accounts): when one of its filters is
    set, the report is computed for the matching rows only (an SQL subquery inside the report's statement). A
    filter whose ``method`` is ``report_option`` does not touch the queryset: ``make_report`` reads it from
    ``self.options`` (the as-of date …). Subclasses give ``make_report(subquery)`` — ``subquery`` is None (every
    row) or the (SQL, params) selecting the primary keys of the filtered queryset, which the report turns into its
    own scope (``receivables.reportlists.PositionList``: an ``AccountFilter``) — the table's ``sql_order`` (column →
    one SQL term of the report's inner query) and ``report_totals(totals)`` (column → total)."""

    per_page = 100  # web/paging.REPORT_PAGE_SIZE: the reports' page before the list mechanism
    settings: tuple[str, ...] = ("as_of",)  # parameters that set the report rather than filter it (not "filters")

    def __init__(self, request, queryset: QuerySet, *, prefix: str | None = None):
        self.request = request
        if prefix is not None:
            self.prefix = prefix
        self.filterset = self.filter_class(request.GET, queryset=queryset, request=request, prefix=self.prefix or None)
        qs = self.filterset.qs
        form = self.filterset.form
        self.options = {k: v for k, v in form.cleaned_data.items() if v not in (None, "")} if form.is_bound else {}
        subquery = qs.values("pk").query.sql_with_params() if qs.query.has_filters() else None
        self.report = self.make_report(subquery)
        self.table = self.table_class(ReportData(self.report))
        self.table.request = request
        self.column_choice = choose_columns(self.table, request.GET.getlist(self.param("cols")))
        asked = [s for s in request.GET.getlist(self.param("sort")) if s]
        self.table.order_by = asked or self.default_sort or None
        if not self.table.order_by:
            self.report.order_by = ", ".join(self.table.sql_tiebreak)

    def make_report(self, subquery: tuple[str, tuple] | None):
        raise NotImplementedError

    @property
    def filtered(self) -> bool:
        names = {self.filterset.form.add_prefix(n) for n in self.filterset.filters if n not in self.settings}
        return any(v for k, v in self.request.GET.items() if k in names)

    @property
    def clear_url(self) -> str:
        """The filters cleared, the report's settings (the as-of date) kept."""
        keep = {self.param(n) for n in self.settings}
        q = self.request.GET.copy()
        for k in list(q):
            if self._mine(k) and k not in keep:
                q.pop(k)
        s = q.urlencode()
        return f"{self.request.path}?{s}" if s else self.request.path

    def report_totals(self, totals) -> dict:
        raise NotImplementedError

    @cached_property
    def page(self):
        """The page asked for is read first: its one statement brings the totals over every row too (window
        aggregates), so the count and the totals cost no second run of the report (issue 29: the aging page ran
        its whole statement twice). A page past the end reads nothing; then the totals are a query of their own."""
        per, n = self._page_asked()
        self.report.prefetch((n - 1) * per, n * per)
        return super().page

    @property
    def report_figures(self):
        """The report's own totals over every row (``positions.ReportTotals`` …), read with the page."""
        _ = self.page
        return self.report.totals()

    @cached_property
    def summary(self) -> dict:
        t = self.report.totals()
        return {"count": t.count, **self.report_totals(t)}

    def export_rows(self):
        cols = self.export_columns()
        yield [str(c.header) for c in cols]
        for record in self.report:  # streamed by the report (a server-side cursor on PostgreSQL)
            row = BoundRow(record, table=self.table)
            yield [plain(row.get_cell_value(c.name)) for c in cols]


def report_option(queryset, name, value):
    """The ``method`` of a report's filter that is not a filter of accounts (the as-of date …)."""
    return queryset
