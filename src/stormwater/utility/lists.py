"""The bills list (issue 16): search, class, paid / partly paid / unpaid, overdue, balance, period, due dates;
sortable, paged with totals, exported — on the one list mechanism (``web.lists``). Owners reach it through
``bills_for_user`` like every other bill page."""
from __future__ import annotations

import django_tables2 as tables
from django.db.models import Case, CharField, Exists, F, OuterRef, Q, QuerySet, Subquery, Sum, Value, When
from django.urls import reverse
from django.utils.html import format_html
from django.utils import timezone

from stormwater.parcels.models import CLASS_CHOICES
from stormwater.web.lists import (DateColumn, ListFilter, ListPage, ListTable, MoneyColumn, NumberColumn,
                                  SearchFilter, choice_filter, date_filter_field)

from .balances import BALANCE_CHOICES, HALF_CENT, MONEY_FIELD, balance_filter, ledger_sum
from .models import Bill, Component, EntryKind, Installment, LedgerEntry, RunState

PAID, PARTLY, UNPAID, LIEN = "paid", "partly", "unpaid", "lien"
STATUS_CHOICES = [(UNPAID, "Unpaid"), (PARTLY, "Partly paid"), (PAID, "Paid (no principal owed)"),
                  (LIEN, "Committed to the tax bill (lien)")]
STATUS_LABELS = dict(STATUS_CHOICES)
SHORT_CLASS = {"small_residential": "Small residential", "large_residential": "Large residential",
               "nonresidential": "Nonresidential", "exempt": "Exempt"}


def bills_annotated(qs: QuerySet[Bill]) -> QuerySet[Bill]:
    """Each bill with what the ledger says of it, in the list's one query (correlated subqueries):

    - ``balance``: every posted entry of the bill (principal, interest charged, demand charges; owed > 0);
    - ``principal_owed``: its principal still owed; ``status``: unpaid (all of it), partly paid, paid (none), or
      committed to the tax bill as a lien (Ch. 295 Art. IV billing ¶D; a lien entry moves what was owed there);
    - ``next_due``: the due date of its oldest installment with principal still owed (payments go oldest first,
      billing ¶C), so a bill is overdue when that date has passed.
    """
    principal = LedgerEntry.objects.filter(component=Component.PRINCIPAL)
    inst_owed = ledger_sum(installment=OuterRef("pk"), entries=principal)
    next_due = (Installment.objects.filter(bill=OuterRef("pk")).annotate(owed=inst_owed)
                .filter(owed__gt=HALF_CENT).order_by("due_date").values("due_date")[:1])
    lien = LedgerEntry.objects.filter(bill=OuterRef("pk"), kind=EntryKind.LIEN)
    return qs.annotate(
        balance=ledger_sum(bill=OuterRef("pk")), principal_owed=ledger_sum(bill=OuterRef("pk"), entries=principal),
        next_due=Subquery(next_due), in_lien=Exists(lien),
    ).annotate(status=Case(
        When(in_lien=True, then=Value(LIEN)),
        When(principal_owed__lte=HALF_CENT, then=Value(PAID)),
        When(principal_owed__gte=F("amount") - HALF_CENT, then=Value(UNPAID)),
        default=Value(PARTLY), output_field=CharField()))


def fiscal_years():
    """The fiscal years bills exist for (a bill's period starts July 1 of the year before the FY it names)."""
    return [(y, f"FY{y + 1} (from July {y})") for y in sorted(
        {d.year for d in Bill.objects.dates("period_start", "year")}, reverse=True)]


def _overdue(record) -> bool:
    return record.next_due is not None and record.next_due < timezone.localdate()


class BillFilter(ListFilter):
    q = SearchFilter(fields=["number", "owner_name", "parcel__address", "parcel__parcel_id", "account__number"],
                     label="Search (bill, owner, address, parcel or account)")
    status = choice_filter("status", "Paid?", STATUS_CHOICES)
    overdue = choice_filter(None, "Overdue", [("yes", "Overdue (an installment past due)"), ("no", "Not overdue")],
                            method="_overdue")
    balance = choice_filter(None, "Balance", BALANCE_CHOICES, method="_balance")
    property_class = choice_filter("property_class", "Class", CLASS_CHOICES)
    period = choice_filter("period_start__year", "Fiscal year", fiscal_years)
    due_from = date_filter_field("next_due", "gte", "Next due on or after")
    due_to = date_filter_field("next_due", "lte", "Next due on or before")
    issued_from = date_filter_field("issue_date", "gte", "Issued on or after")
    issued_to = date_filter_field("issue_date", "lte", "Issued on or before")
    kind = choice_filter(None, "Kind", [("regular", "Regular bill"), ("back", "Back bill (billing ¶A)"),
                                        ("flagged", "Flagged for review (over the last block)")], method="_kind")

    def _overdue(self, qs, name, value):
        today = timezone.localdate()
        return qs.filter(next_due__lt=today) if value == "yes" else qs.filter(Q(next_due__isnull=True)
                                                                              | Q(next_due__gte=today))

    def _balance(self, qs, name, value):
        return balance_filter(qs, value)

    def _kind(self, qs, name, value):
        return {"regular": qs.filter(is_back_bill=False), "back": qs.filter(is_back_bill=True),
                "flagged": qs.filter(flagged=True)}[value]


class BillTable(ListTable):
    number = tables.Column("Bill", linkify=("bill_detail", [tables.A("number")]))
    address = tables.Column("Parcel", accessor="parcel__address")
    account = tables.Column("Account", accessor="account__number")
    issue_date = DateColumn("Issued")
    owner_name = tables.Column("Billed to")
    property_class = tables.Column("Class")
    amount = MoneyColumn("Amount")
    balance = MoneyColumn("Balance (posted)")
    status = tables.Column("Paid?")
    next_due = DateColumn("Next due", default="—")

    def render_status(self, value, record):
        if _overdue(record):
            return format_html('<span class="badge">{}</span> <span class="badge bad">overdue</span>',
                               STATUS_LABELS.get(value, value))
        return format_html('<span class="badge">{}</span>', STATUS_LABELS.get(value, value))

    def value_status(self, value, record):
        return STATUS_LABELS.get(value, value) + (" (overdue)" if _overdue(record) else "")

    def render_property_class(self, value):
        return SHORT_CLASS.get(value, value)

    value_property_class = render_property_class


class BillList(ListPage):
    table_class = BillTable
    filter_class = BillFilter
    noun = ("bill", "bills")
    export_name = "bills"
    totals = {"amount": Sum("amount", output_field=MONEY_FIELD), "balance": Sum(ledger_sum(bill=OuterRef("pk")), output_field=MONEY_FIELD)}
    default_sort = ("-issue_date", "number")

    def __init__(self, request, queryset):
        super().__init__(request, bills_annotated(queryset))


class BillRunFilter(ListFilter):
    q = SearchFilter(fields=["period_label", "resolution__label"], label="Search (period, rate resolution)")
    state = choice_filter("state", "State", RunState.choices)
    issued_from = date_filter_field("issue_date", "gte", "Issue date on or after")
    issued_to = date_filter_field("issue_date", "lte", "Issue date on or before")


class BillRunTable(ListTable):
    period = tables.Column("Period", accessor="period_label", order_by=("period_start",))
    state = tables.Column("State")
    issue_date = DateColumn("Issue date")
    resolution = tables.Column("Rates", accessor="resolution", order_by=("resolution__effective_from",))
    bill_count = NumberColumn("Bills")
    total_billed = MoneyColumn("Billed")

    def render_period(self, value, record):
        return format_html('<a href="{}">{} (run {})</a>', reverse("bill_run_detail", args=[record.pk]), value,
                           record.pk)

    def value_period(self, value, record):
        return f"{value} (run {record.pk})"

    def render_state(self, value, record):
        return format_html('<span class="badge state-{}">{}</span>', record.state, record.get_state_display())

    def value_state(self, value, record):
        return record.get_state_display()

    def value_resolution(self, value):
        return str(value)


class BillRunList(ListPage):
    """Every bill run (issue 16; the run states of docs/billing-runs.md). The totals count issued runs only: a
    voided run or a discarded proof bills no one (its bills stay as rows, owed by no one)."""

    table_class = BillRunTable
    filter_class = BillRunFilter
    noun = ("bill run", "bill runs")
    export_name = "bill-runs"
    totals = {"bill_count": Sum("bill_count", filter=Q(state=RunState.ISSUED)),
              "total_billed": Sum("total_billed", filter=Q(state=RunState.ISSUED), output_field=MONEY_FIELD)}
    default_sort = ("-period", "-issue_date")

    def __init__(self, request, queryset):
        super().__init__(request, queryset.select_related("resolution"))


class ProblemFilter(ListFilter):
    q = SearchFilter(fields=["parcel_id", "address", "owner__name", "problem"],
                     label="Search (parcel, address, owner or why)")


class ProblemTable(ListTable):
    parcel_id = tables.Column("Parcel", linkify=("parcel_detail", [tables.A("parcel_id")]))
    address = tables.Column("Address")
    problem = tables.Column("Why", attrs={"td": {"class": "problem"}})


class ProblemList(ListPage):
    """Parcels a bill run on ``as_of`` could not bill, with why (never a silent $0). Which parcels and why is
    ``selectors.billing_problems`` (set-based: every parcel through the one fee path in a constant number of
    queries); the list hands its answer to SQL (``problem``: one ``WHEN parcel_id IN (…)`` per distinct reason)
    so that search, sort, paging and exports act on it like any list."""

    table_class = ProblemTable
    filter_class = ProblemFilter
    noun = ("parcel", "parcels")
    export_name = "billing-problems"
    default_sort = ("parcel_id",)
    per_page = 100  # as the report was paged before the list mechanism

    def __init__(self, request, *, as_of):
        from stormwater.cases.lists import due_expression
        from stormwater.parcels.models import Parcel

        from .selectors import ERR_NO_RESOLUTION, billing_problems, resolution_in_force

        qs = Parcel.objects.all()
        self.all_count = None  # every problem, whatever the search (None: count them with the page)
        if resolution_in_force(as_of) is None:  # every parcel, for one reason
            qs = qs.annotate(problem=Value(ERR_NO_RESOLUTION.format(day=as_of), output_field=CharField()))
        else:
            why = {p.parcel_id: p.problem for p in billing_problems(as_of=as_of)}
            self.all_count = len(why)
            qs = qs.filter(parcel_id__in=list(why)).annotate(
                problem=due_expression(why, field="parcel_id", output_field=CharField()))
        super().__init__(request, qs)


__all__ = ["BillList", "BillRunList", "ProblemList", "bills_annotated", "STATUS_CHOICES"]
