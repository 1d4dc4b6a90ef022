"""The general ledger export (issue 17): the stormwater ledger's entries over a period summarised as a balanced
journal by the town's account codes (UMAS style, ``fund-account``; the codes are ``TownConfig.gl_*``), as a file
the finance system imports.

Every ledger entry moves one side that belongs to the account holder — the receivable for principal, interest
and demand components, the credit-balance liability for unapplied credit — against another side its kind names:
a bill's commitment (fee revenue), interest (¶C) and demand charges (revenue), receipts and refunds (cash),
abatements (¶E), liens committed to the tax bill (¶D). An entry that increases what is owed debits the holder's
side; one that decreases it credits it. One SQL aggregate by (kind, component) reads the period.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.db.models import Count, F, Q, Sum

from stormwater.rules.money import ZERO, round_cents
from stormwater.rules.town import TownConfig
from stormwater.utility.models import Component, EntryKind, LedgerEntry

GL_COLUMNS = ("period_start", "period_end", "account", "description", "debit", "credit", "entries")

# The other side of an entry, by its kind (TownConfig field names).
OTHER_SIDE = {
    EntryKind.CHARGE: ("gl_fee_revenue", "Commitment of stormwater bills"),
    EntryKind.INTEREST: ("gl_interest_revenue", "Interest (Ch. 295 Art. IV billing ¶C)"),
    EntryKind.DEMAND: ("gl_demand_revenue", "Demand charges (billing ¶D)"),
    EntryKind.PAYMENT: ("gl_cash", "Receipts"),
    EntryKind.REVERSAL: ("gl_cash", "Receipts reversed (returned checks, mistakes)"),
    EntryKind.REFUND: ("gl_cash", "Refunds paid"),
    EntryKind.ABATEMENT: ("gl_abatements", "Abatements (billing ¶E)"),
    EntryKind.LIEN: ("gl_tax_liens", "Committed to the tax bill as liens (billing ¶D)"),
    EntryKind.CREDIT: ("gl_credit_balances", "Credit balances applied"),
    # Go-live (issue 32): opening credit balances and interest adjustments from the old system's books, which the
    # town's books already carry: a clearing account, not revenue.
    EntryKind.CONVERSION: ("gl_conversion", "Opening balances converted from the old system"),
}


def _holder_side(component: str) -> str:
    return "gl_credit_balances" if component == Component.UNAPPLIED else "gl_receivable"


@dataclass(frozen=True)
class GLLine:
    account: str
    description: str
    debit: Decimal
    credit: Decimal
    entries: int


def gl_journal(*, start: date, end: date, cfg: TownConfig) -> list[GLLine]:
    """The balanced journal of the ledger's entries effective ``start``–``end`` (inclusive), then the office's cash
    that is not an account's ledger (``OFFICE_LINES``: over/short, fees receipted at the window, lockbox suspense),
    so that the journal's cash is what was deposited (issue 25)."""
    code = lambda field: f"{cfg.gl_fund}-{getattr(cfg, field)}"  # noqa: E731
    lines = _ledger_lines(start, end, code)
    for source in OFFICE_LINES:
        for other, label, amount, n in source(start, end):
            amount = round_cents(amount)
            if amount == 0:
                continue
            debit, credit = ("gl_cash", other) if amount > 0 else (other, "gl_cash")
            lines.append(GLLine(code(debit), label, abs(amount), ZERO, n))
            lines.append(GLLine(code(credit), label, ZERO, abs(amount), n))
    return lines


def _ledger_lines(start: date, end: date, code) -> list[GLLine]:
    lines: list[GLLine] = []
    rows = (LedgerEntry.objects.filter(effective_on__gte=start, effective_on__lte=end).values("kind", "component")
            .annotate(s=Sum("amount"), n=Count("id")).order_by("kind", "component"))
    for r in rows:
        amount = round_cents(r["s"] or ZERO)
        if amount == 0:
            continue
        other, label = OTHER_SIDE[r["kind"]]
        holder = _holder_side(r["component"])
        if other == holder:  # a move within the credit balances (applied credit's own half): no journal line
            continue
        what = f"{label} — {Component(r['component']).label.lower()}"
        debit, credit = (holder, other) if amount > 0 else (other, holder)
        a = abs(amount)
        lines.append(GLLine(code(debit), what, a, ZERO, r["n"]))
        lines.append(GLLine(code(credit), what, ZERO, a, r["n"]))
    return lines


def _over_short(start: date, end: date):
    """Batches closed in the period counted over (cash in, revenue) or short (cash out, expense): the deposit
    carries the counted cash, the ledger the receipts; this line is the difference (issue 25)."""
    from stormwater.cashier.models import CashBatch

    from .selectors import _day_bounds

    lo, _ = _day_bounds(start)
    _, hi = _day_bounds(end)
    closed = CashBatch.objects.filter(closed_at__gte=lo, closed_at__lt=hi, counted_total__isnull=False)
    diff = F("counted_total") - F("expected_total")
    for label, q in (("Cash over (cashier's batches counted more than their receipts)", Q(counted_total__gt=F(
            "expected_total"))), ("Cash short (cashier's batches counted less than their receipts)",
                                  Q(counted_total__lt=F("expected_total")))):
        r = closed.filter(q).aggregate(s=Sum(diff), n=Count("id"))
        yield "gl_over_short", label, r["s"] or ZERO, r["n"]


def _lockbox_suspense(start: date, end: date):
    """Lockbox rows held in suspense (issue 25): cash in against the suspense liability on the day received; when
    matched, the ledger's receipt debits cash again, so the suspense line moves it back (dated as that receipt);
    returned or refunded, cash out on the day settled."""
    from stormwater.receivables.models import SuspenseItem, SuspenseState

    from .selectors import _day_bounds

    lo, _ = _day_bounds(start)
    _, hi = _day_bounds(end)
    items = SuspenseItem.objects
    r = items.filter(received_on__gte=start, received_on__lte=end).aggregate(s=Sum("amount"), n=Count("id"))
    yield "gl_lockbox_suspense", "Lockbox receipts held in suspense (no account matched)", r["s"] or ZERO, r["n"]
    r = items.filter(state=SuspenseState.MATCHED, payment__received_on__gte=start,
                     payment__received_on__lte=end).aggregate(s=Sum("amount"), n=Count("id"))
    yield ("gl_lockbox_suspense", "Suspense matched to accounts (their receipts are in the ledger's receipts)",
           -(r["s"] or ZERO), r["n"])
    r = items.filter(state__in=[SuspenseState.RETURNED, SuspenseState.REFUNDED], resolved_at__gte=lo,
                     resolved_at__lt=hi).aggregate(s=Sum("amount"), n=Count("id"))
    yield "gl_lockbox_suspense", "Suspense returned or refunded to payers", -(r["s"] or ZERO), r["n"]


def _fees(start: date, end: date):
    """Fees receipted at the window (issue 25): cash in, each kind on its own revenue line (the municipal lien
    certificate fee, MGL c.60 §23: ``TownConfig.gl_lien_certificate_fees``)."""
    from stormwater.cashier.models import FeeKind, FeeReceipt

    from .selectors import _day_bounds

    lo, _ = _day_bounds(start)
    _, hi = _day_bounds(end)
    other = {FeeKind.LIEN_CERTIFICATE: ("gl_lien_certificate_fees",
                                        "Municipal lien certificate fees (MGL c.60 §23)")}
    for r in (FeeReceipt.objects.filter(issued_at__gte=lo, issued_at__lt=hi).values("kind")
              .annotate(s=Sum("amount"), n=Count("id")).order_by("kind")):
        field, label = other[r["kind"]]
        yield field, label, r["s"] or ZERO, r["n"]


def _permit_fees(start: date, end: date):
    """Permit application fees paid online (issue 30, Ch. 380 § 380-10 G(1); receivables/online_fees.py): cash in
    with the processor's file that receipted them, on the day the processor paid (as its bill payments are in the
    ledger), against their own revenue line (``TownConfig.gl_permit_fees``)."""
    from stormwater.receivables.models import OnlinePayment

    r = OnlinePayment.objects.filter(settled_file__isnull=False, settled_on__gte=start,
                                     settled_on__lte=end).aggregate(s=Sum("amount"), n=Count("id"))
    yield "gl_permit_fees", "Permit application fees paid online (Ch. 380 § 380-10 G(1))", r["s"] or ZERO, r["n"]


# The office's cash beyond the ledger, each a function (start, end) → (other side's TownConfig field, description,
# signed amount: > 0 cash in, entries). Other modules of the office add theirs (fees, lockbox suspense).
OFFICE_LINES: list = [_fees, _permit_fees, _over_short, _lockbox_suspense]


def gl_rows(*, start: date, end: date, cfg: TownConfig):
    lines = gl_journal(start=start, end=end, cfg=cfg)
    for line in lines:
        yield [start, end, line.account, line.description, line.debit, line.credit, line.entries]
    yield [start, end, "", "Total", sum((x.debit for x in lines), ZERO), sum((x.credit for x in lines), ZERO),
           sum(x.entries for x in lines) // 2]
