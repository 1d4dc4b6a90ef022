"""GIS lists (issue 16) on the one list mechanism: the impervious surveys (each with its parcel count and total
impervious area, summed by the database) and the imports (parameters ``imports-…``, no longer cut at 50)."""
from __future__ import annotations

import django_tables2 as tables
from django.db.models import Count, DecimalField, OuterRef, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils.html import format_html

from stormwater.parcels.models import ImperviousSurvey, ParcelImpervious
from stormwater.web.lists import (DateColumn, ListFilter, ListPage, ListTable, NumberColumn, SearchFilter, choice_filter,
                                  date_filter_field)

from .models import GisImport

AREA = DecimalField(max_digits=16, decimal_places=2)


class SurveyFilter(ListFilter):
    q = SearchFilter(fields=["name", "source"], label="Search (name, source)")
    on_from = date_filter_field("surveyed_on", "gte", "Surveyed on or after")
    on_to = date_filter_field("surveyed_on", "lte", "Surveyed on or before")


class SurveyTable(ListTable):
    name = tables.Column("Survey", linkify=("gis_survey_detail", [tables.A("pk")]))
    surveyed_on = DateColumn("Surveyed on")
    n = NumberColumn("Parcels")
    total = NumberColumn("Impervious ft²")
    eru = tables.Column("ERU", empty_values=(), orderable=False, exclude_from_export=True)
    files = tables.Column("Export", empty_values=(), orderable=False, exclude_from_export=True)

    def render_n(self, value):
        return f"{value:,}"

    def render_total(self, value):
        return f"{value:,.0f}"

    def render_eru(self, record):
        return format_html('<a href="{}">median<span class="visually-hidden"> of {}</span></a>',
                           reverse("gis_survey_eru", args=[record.pk]), record.name)

    def render_files(self, record):
        return format_html('<a href="{}">CSV</a> · <a href="{}">GeoPackage</a>',
                           reverse("gis_survey_export", args=[record.pk, "csv"]),
                           reverse("gis_survey_export", args=[record.pk, "gpkg"]))


class SurveyList(ListPage):
    table_class = SurveyTable
    filter_class = SurveyFilter
    noun = ("survey", "surveys")
    export_name = "impervious-surveys"
    default_sort = ("-surveyed_on",)

    def __init__(self, request):
        areas = ParcelImpervious.objects.filter(survey=OuterRef("pk")).order_by().values("survey")
        qs = ImperviousSurvey.objects.annotate(
            n=Coalesce(Subquery(areas.annotate(c=Count("pk")).values("c")), 0),
            total=Coalesce(Subquery(areas.annotate(s=Sum("impervious_sqft")).values("s"), output_field=AREA),
                           Value(0), output_field=AREA))
        super().__init__(request, qs)


class ImportFilter(ListFilter):
    kind = choice_filter("kind", "Kind", GisImport.Kind.choices)
    status = choice_filter("status", "Status", GisImport.Status.choices)
    on_from = date_filter_field("created_at__date", "gte", "Uploaded on or after")
    on_to = date_filter_field("created_at__date", "lte", "Uploaded on or before")


class ImportTable(ListTable):
    number = tables.Column("#", accessor="pk", linkify=("gis_import_detail", [tables.A("pk")]))
    kind = tables.Column("Kind")
    files = tables.Column("Files", orderable=False)
    status = tables.Column("Status")
    created_by = tables.Column("By", accessor="created_by__username", default="—")
    created_at = DateColumn("When", time=True)

    def render_files(self, value):
        text = ", ".join(value or [])
        return text if len(text) <= 80 else text[:79] + "…"

    def value_files(self, value):
        return ", ".join(value or [])


class ImportList(ListPage):
    table_class = ImportTable
    filter_class = ImportFilter
    noun = ("import", "imports")
    export_name = "gis-imports"
    default_sort = ("-created_at",)
    prefix = "imports"

    def __init__(self, request):
        super().__init__(request, GisImport.objects.select_related("created_by").defer("report", "mapping"))
