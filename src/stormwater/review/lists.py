"""Engineering reviews on the one list mechanism (issue 16): search, result, provisional, dates; sortable, paged,
exported (no longer cut at 200). Reviews come through ``reviews_for_user``; the plan text and results are not read
for the list."""
from __future__ import annotations

import django_tables2 as tables
from django.utils.html import format_html

from stormwater.web.lists import DateColumn, ListFilter, ListPage, ListTable, SearchFilter, choice_filter, date_filter_field

from .models import Review


class ReviewFilter(ListFilter):
    q = SearchFilter(fields=["title", "input_name", "case__number", "created_by__username"],
                     label="Search (title, file name, case, who ran it)")
    overall = choice_filter("overall", "Result", Review.Overall.choices)
    provisional = choice_filter(None, "Provisional tables", [("yes", "Provisional"), ("no", "Official only")],
                                method="_provisional")
    run_from = date_filter_field("created_at__date", "gte", "Run on or after")
    run_to = date_filter_field("created_at__date", "lte", "Run on or before")

    def _provisional(self, qs, name, value):
        return qs.filter(provisional=value == "yes")


class ReviewTable(ListTable):
    number = tables.Column("#", accessor="pk", linkify=("review_detail", [tables.A("pk")]))
    title = tables.Column("Title", linkify=("review_detail", [tables.A("pk")]))
    overall = tables.Column("Result")
    case = tables.Column("Case", accessor="case__number", default="—")
    created_by = tables.Column("Run by", accessor="created_by__username", default="—")
    created_at = DateColumn("When", time=True)

    def render_overall(self, value, record):
        out = format_html('<span class="rv-badge rv-{}">{}</span>', record.overall, record.get_overall_display())
        if record.provisional:
            out += format_html(' <span class="rv-flag">{}</span>', "provisional")
        return out

    def value_overall(self, record):
        return record.get_overall_display() + (" (provisional)" if record.provisional else "")


class ReviewList(ListPage):
    table_class = ReviewTable
    filter_class = ReviewFilter
    noun = ("review", "reviews")
    export_name = "engineering-reviews"
    default_sort = ("-created_at",)

    def __init__(self, request, queryset):
        super().__init__(request, queryset.defer("input_text", "results"))
