"""Reads of relief: the credit policy in force, credits in force per parcel (the fee path reads them),
what a bill still owes and what was paid on it, the cases a user may reach, the staff work queue.

``relief_case_get_for_user`` is the only way a view or endpoint reaches a case: an owner reaches the
cases they filed or are a party to, staff all of them; anything else is 404 (no probing of numbers).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.db.models import Q, QuerySet, Sum
from django.http import Http404
from django.utils import timezone

from stormwater.accounts.roles import Perm
from stormwater.cases.models import Case, Clock
from stormwater.cases.selectors import ClockView, clock_view
from stormwater.rules.clocks import Standing
from stormwater.rules.deadlines import deadline
from stormwater.rules.money import ZERO, fmt_ratio, round_cents
from stormwater.utility.models import Bill, EntryKind, LedgerEntry

from . import workflow as wf
from .models import CreditGrant, CreditPolicy

ERR_NOT_FOUND = "No such case."


# --- credit policy and credits in force -------------------------------------------------------------

def policy_in_force(on: date) -> CreditPolicy | None:
    """The policy with the latest effective date on or before ``on`` (credits ¶A)."""
    return (CreditPolicy.objects.filter(effective_from__lte=on).prefetch_related("types")
            .order_by("-effective_from", "-id").first())


def grants_in_force(*, on: date, parcel_pks=None) -> QuerySet[CreditGrant]:
    """Grants in force on ``on``: effective, not expired, not revoked (the first day of expiry or
    revocation is the first day without the credit)."""
    qs = (CreditGrant.objects.filter(effective_from__lte=on)
          .filter(Q(expires_on__isnull=True) | Q(expires_on__gt=on))
          .filter(Q(revoked_on__isnull=True) | Q(revoked_on__gt=on))
          .select_related("credit_type", "application__case"))
    if parcel_pks is not None:
        qs = qs.filter(parcel_id__in=list(parcel_pks))
    return qs


def combine_percents(items: list[tuple[Decimal, bool]], *, cap: Decimal) -> Decimal:
    """The combined credit of one parcel: stackable credits add; of the non-stackable ones only the
    largest counts (and adds to the stackable ones); the policy's cap limits the total."""
    stack = sum((p for p, s in items if s), Decimal(0))
    single = max((p for p, s in items if not s), default=Decimal(0))
    return min(stack + single, cap, Decimal(100))


def credit_percent_by_parcel(*, on: date, parcel_pks=None) -> dict[int, tuple[Decimal, str]]:
    """Parcel pk → (combined credit percent, short description) of the credits in force on ``on``.

    Registered in ``utility.credits`` (``apps.ReliefConfig.ready``), read by ``utility.selectors.credits_in_force``
    for bill runs and parcel pages: a bill takes the
    credits in force on its issue date, so a grant applies prospectively and a revocation returns the
    fee from the next bill (credits ¶C, ¶E). One query for the whole town.
    """
    by_parcel: dict[int, list[CreditGrant]] = {}
    for g in grants_in_force(on=on, parcel_pks=parcel_pks):
        by_parcel.setdefault(g.parcel_id, []).append(g)
    if not by_parcel:
        return {}
    policy = policy_in_force(on)
    cap = policy.max_combined_percent if policy else Decimal(100)
    out = {}
    for pk, grants in by_parcel.items():
        pct = combine_percents([(g.percent, g.credit_type.stackable) for g in grants], cap=cap)
        note = "; ".join(f"{g.credit_type.name} {fmt_ratio(g.percent)}%, {g.application.case.number}" for g in grants)
        if pct < sum((g.percent for g in grants), Decimal(0)):
            note += f"; combined {fmt_ratio(pct)}% under the credit policy's stacking rules and cap"
        out[pk] = (pct, note)
    return out


# --- bills: owed, paid, abated ----------------------------------------------------------------------

def bill_owed(bill: Bill, *, as_of: date) -> Decimal:
    """What the bill's installments issued by ``as_of`` still owe (principal, interest, demand charges)."""
    from stormwater.utility.ledger import account_dues

    return sum((d.total for d in account_dues(bill.account, as_of=as_of)
                if d.installment.bill_id == bill.pk and d.installment.issue_date <= as_of), ZERO)


def bill_paid(bill: Bill) -> Decimal:
    """What the owner paid on the bill: payments (net of reversals), credit balances applied to it, and what the old
    system took on a converted bill (kind ``conversion`` on the principal, issue 32)."""
    entries = LedgerEntry.objects.filter(bill=bill)
    paid = entries.filter(kind__in=[EntryKind.PAYMENT, EntryKind.REVERSAL]).aggregate(s=Sum("amount"))["s"] or ZERO
    applied = entries.filter(kind=EntryKind.CREDIT, amount__lt=0).exclude(component="unapplied") \
        .aggregate(s=Sum("amount"))["s"] or ZERO
    # Go-live (issue 32): a bill the owner paid in full in the old system, converted for its open abatement
    # (golive.relief_cases), carries that payment as a negative principal entry of kind conversion.
    old = entries.filter(kind=EntryKind.CONVERSION, component="principal", amount__lt=0) \
        .aggregate(s=Sum("amount"))["s"] or ZERO
    return round_cents(-(paid + applied + old))


def bill_abated(bill: Bill) -> Decimal:
    s = LedgerEntry.objects.filter(bill=bill, kind=EntryKind.ABATEMENT).aggregate(s=Sum("amount"))["s"] or ZERO
    return round_cents(-s)


def bill_abatable(bill: Bill) -> Decimal:
    """The most that can still be abated: never more than was paid, nor than the bill less prior abatements."""
    return max(ZERO, min(bill_paid(bill), bill.amount) - bill_abated(bill))


def abatement_windows(bill: Bill) -> list[tuple[date, date]]:
    """(issue date, last day to apply) for each installment of the bill (billing ¶E: 30 days from issue)."""
    return [(i.issue_date, deadline("abatement_filing", i.issue_date).due) for i in bill.installments.all()]


# --- cases ------------------------------------------------------------------------------------------

def relief_cases_for_user(user) -> QuerySet[Case]:
    qs = Case.objects.filter(kind__in=wf.KINDS).select_related("applicant")
    if user.can(Perm.RELIEF_VIEW_ALL):
        return qs
    return qs.filter(Q(applicant=user) | Q(parties__user=user)).distinct()


def relief_case_get_for_user(*, user, number: str) -> Case:
    case = relief_cases_for_user(user).filter(number=number).first()
    if case is None:
        raise Http404(ERR_NOT_FOUND)
    return case


def detail_of(case: Case):
    """The remedy's own row: CreditApplication, Abatement or Appeal."""
    if case.kind == wf.CREDIT:
        return case.credit_application
    if case.kind == wf.ABATEMENT:
        return case.abatement
    return case.appeal


def parcel_of(case: Case):
    d = detail_of(case)
    if case.kind == wf.CREDIT:
        return d.parcel
    if case.kind == wf.ABATEMENT:
        return d.bill.parcel
    if d.bill_id:
        return d.bill.parcel
    return parcel_of(case.parent) if case.parent_id else None


@dataclass(frozen=True)
class QueueRow:
    case: Case
    view: ClockView
    party: str

    @property
    def missed(self) -> bool:
        """A Town deadline that passed without the act: flagged, never hidden."""
        return self.party == "town" and self.view.standing is Standing.OVERDUE

    @property
    def lapsed(self) -> bool:
        return self.party == "owner" and self.view.standing is Standing.OVERDUE


def late_met(cv: ClockView) -> bool:
    """A clock met after its due date (a Town deadline missed, then done)."""
    return cv.clock.met_on is not None and cv.state.due is not None and cv.clock.met_on > cv.state.due


def work_queue(*, today: date | None = None, town_only: bool = False, cases: QuerySet[Case] | None = None,
               prefetch: tuple[str, ...] = ()) -> list[QueueRow]:
    """Every running clock of an open relief case, due first (stopped clocks last). ``cases`` restricts it
    (e.g. ``relief_cases_for_user(user)`` for an owner's own); ``prefetch`` adds related rows read in the same
    constant number of queries (the staff work queue in stormwater.workqueue reads the parties)."""
    today = today or timezone.localdate()
    clocks = (Clock.objects.filter(case__kind__in=wf.KINDS, case__closed_at__isnull=True, met_on__isnull=True)
              .select_related("case").prefetch_related("tolls", "extensions", *prefetch))
    if cases is not None:
        clocks = clocks.filter(case__in=cases.values("pk"))
    rows = []
    for c in clocks:
        party = wf.clock_party(c.kind)
        if town_only and party != "town":
            continue
        view = clock_view(c, today=today)
        # An owner's window that closed (appeal, ATB) leaves staff nothing to do: it stays on the case page,
        # not in the queue. A lapsed recertification stays: the Department may revoke (credits ¶C).
        if party == "owner" and view.standing is Standing.OVERDUE and c.kind != wf.RECERTIFICATION:
            continue
        rows.append(QueueRow(case=c.case, view=view, party=party))
    rows.sort(key=lambda r: (r.view.due is None, r.view.due or date.max, r.party != "town", r.case.number))
    return rows
