"""Stewardship lists (issue 16) on the one list mechanism (``web.lists``): the sites (search, status, the next
annual O&M certification — § 380-14 C(2)(l): overdue, due within 30 days — as a filter and a sort) and a site's
BMP inventory (search, EPA Region 1 category, subwatershed). Sites come through ``sites_for_user``."""
from __future__ import annotations

from datetime import timedelta

import django_tables2 as tables
from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.html import format_html

from stormwater.cases.lists import due_expression
from stormwater.web.lists import (DUE_FORMAT, DateColumn, ListFilter, ListPage, ListTable, NumberColumn, SearchFilter,
                                  choice_filter)

from .inventory import REGION1_CATEGORIES
from .models import Bmp
from .selectors import certifications_next_many
from .workflow import SiteStatus

CERT_CHOICES = [("overdue", "Overdue"), ("month", "Due within 30 days"), ("scheduled", "Any due date"),
                ("none", "No plan in force yet")]


class SiteFilter(ListFilter):
    q = SearchFilter(fields=["case__number", "name", "address", "permit__case__number"],
                     label="Search (site, name, address, permit)")
    status = choice_filter("case__status", "Status", SiteStatus.choices)
    certification = choice_filter(None, "Next annual certification (§ 380-14 C(2)(l))", CERT_CHOICES,
                                  method="_certification")
    town = choice_filter(None, "Maintained by", [("town", "The Town"), ("owner", "The owner")], method="_town")

    def _certification(self, qs, name, value):
        today = timezone.localdate()
        return {"overdue": lambda: qs.filter(cert_due__lt=today),
                "month": lambda: qs.filter(cert_due__gte=today, cert_due__lte=today + timedelta(days=30)),
                "scheduled": lambda: qs.filter(cert_due__isnull=False),
                "none": lambda: qs.filter(cert_due__isnull=True)}[value]()

    def _town(self, qs, name, value):
        return qs.filter(town_maintained=value == "town")


class SiteTable(ListTable):
    number = tables.Column("Site", accessor="case__number", linkify=lambda record: f"/stewardship/{record.case.number}/")
    name = tables.Column("Name")
    address = tables.Column("Address", default="")
    status = tables.Column("Status", accessor="case__status")
    bmp_count = NumberColumn("BMPs")
    plan = tables.Column("Final O&M plan", empty_values=(), orderable=False)
    cert_due = DateColumn("Next annual certification (§ 380-14 C(2)(l))", default="—")

    def render_status(self, record):
        return format_html('<span class="badge">{}</span>', record.case.status_label)

    def value_status(self, record):
        return record.case.status_label

    def render_plan(self, record):
        got = self.certs.get(record.pk)
        return got[0].recording if got else "—"

    value_plan = render_plan

    def render_cert_due(self, value, record):
        plan, due = self.certs[record.pk]
        late = due.due_on < timezone.localdate()
        from django.template.defaultfilters import date as date_filter

        return format_html('year {} due {}{}', due.seq, date_filter(due.due_on, DUE_FORMAT),
                           format_html(' <span class="badge bad">{}</span>', "overdue") if late else "")

    def value_cert_due(self, value):
        return value


class SiteList(ListPage):
    table_class = SiteTable
    filter_class = SiteFilter
    noun = ("site", "sites")
    export_name = "stewardship-sites"
    default_sort = ("name",)

    def __init__(self, request, queryset):
        certs = certifications_next_many(queryset.values("pk"))
        bmps = Bmp.objects.filter(site=OuterRef("pk")).order_by().values("site").annotate(n=Count("pk")).values("n")
        qs = queryset.annotate(cert_due=due_expression({k: d.due_on for k, (p, d) in certs.items()}),
                               bmp_count=Coalesce(Subquery(bmps), 0))
        super().__init__(request, qs)
        self.table.certs = certs


class BmpFilter(ListFilter):
    q = SearchFilter(fields=["name", "source_type", "treats", "external_id", "owner"],
                     label="Search (name, type, treats, id, owner)")
    category = choice_filter(None, "EPA Region 1 category",
                             [(c, c) for c in REGION1_CATEGORIES] + [("none", "(none: not mapped)")], method="_category")
    subwatershed = choice_filter("subwatershed", "Subwatershed", [])

    def __init__(self, *args, site=None, **kwargs):
        super().__init__(*args, **kwargs)
        names = sorted(x for x in Bmp.objects.filter(site=site).values_list("subwatershed", flat=True).distinct() if x)
        self.form.fields["subwatershed"].choices = [(n, n) for n in names]

    def _category(self, qs, name, value):
        return qs.filter(region1_category="" if value == "none" else value)


class BmpTable(ListTable):
    name = tables.Column("BMP", linkify=lambda record: f"/stewardship/{record.site.case.number}/bmps/{record.pk}/")
    source_type = tables.Column("Type (source)")
    region1_category = tables.Column("EPA Region 1 category", default="—")
    subwatershed = tables.Column("Subwatershed", default="")
    treats = tables.Column("Treats", default="")
    external_id = tables.Column("Id", default="")

    def render_treats(self, value):
        return value if len(value) <= 60 else value[:59] + "…"

    def value_treats(self, value):
        return value


class BmpList(ListPage):
    table_class = BmpTable
    filter_class = BmpFilter
    noun = ("BMP", "BMPs")
    export_name = "bmps"
    default_sort = ("name",)

    def __init__(self, request, site):
        super().__init__(request, site.bmps.select_related("site__case"), site=site)
