"""Reading an account's ledger as installments with buckets (demand, interest, principal).

The one place that knows how entries add up to what is owed, used by payments, demands,
commitments, statements, the bill and reports alike. It sits with the ledger it reads (the utility's models), so the
bill and the bill run read it without importing collections; ``receivables.ledger`` re-exports it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from django.db.models import Q, Sum

from stormwater.rules.interest import accrued_interest, interest_start
from stormwater.rules.money import ZERO, round_cents

from .models import Account, Component, EntryKind, Installment, LedgerEntry


@dataclass
class InstallmentDue:
    installment: Installment
    principal: Decimal
    interest_posted: Decimal  # interest charged to the ledger and still owed
    interest_accrued: Decimal  # earned through as_of, not yet charged to the ledger
    demand: Decimal
    no_interest: bool = False
    buckets: dict = field(default_factory=dict)
    as_of: date | None = None

    @property
    def interest(self) -> Decimal:
        return self.interest_posted + self.interest_accrued

    @property
    def total(self) -> Decimal:
        return self.principal + self.interest + self.demand

    @property
    def issued(self) -> bool:
        return self.as_of >= self.installment.issue_date

    @property
    def past_due(self) -> bool:
        return self.principal > 0 and not self.no_interest


def _installments(account: Account, issued_by: date):
    return list(Installment.objects.filter(bill__account=account, bill__issue_date__lte=issued_by)
                .select_related("bill", "bill__run__resolution").order_by("due_date", "bill__issue_date", "bill_id", "seq"))


def interest_accrued_total(inst: Installment, entries: list[LedgerEntry], as_of: date) -> Decimal:
    """All interest an installment has earned through ``as_of`` (Ch. 295 Art. IV billing ¶C).

    Principal reductions are every principal entry other than its charge, each on its day. A reversal counts
    against the entry it reverses, on that entry's day: reversed in full, the two cancel (a bounced payment never
    stopped interest); reversed in part (a credit application withdrawn in part when the payment that funded it
    bounced, issue 25), what stands of it still reduced the principal from its day. A reversal of a charge (a
    voided run) is no reduction. Back bills earn none (¶A).
    """
    if inst.bill.is_back_bill:
        return ZERO
    by_id = {e.pk: e for e in entries}
    charge = sum((e.amount for e in entries if e.kind == EntryKind.CHARGE and e.component == Component.PRINCIPAL),
                 ZERO)
    reductions = []
    for e in entries:
        if e.component != Component.PRINCIPAL or e.kind == EntryKind.CHARGE:
            continue
        if e.reverses_id is None:
            reductions.append((e.effective_on, -e.amount))
            continue
        # What it reverses is on this installment and effective by as_of (a reversal comes on or after it).
        orig = by_id.get(e.reverses_id)
        if orig is not None and orig.kind != EntryKind.CHARGE:
            reductions.append((orig.effective_on, -e.amount))
    rate = inst.bill.run.resolution.interest_rate_percent
    return accrued_interest(principal=charge, reductions=reductions, due_date=inst.due_date, as_of=as_of,
                            rate_percent=rate)


def account_dues(account: Account, *, as_of: date) -> list[InstallmentDue]:
    """Each installment of the account's bills issued by ``as_of``, with what it still owes.

    Principal counts the whole charge of an issued bill even before a later installment's own
    issue date, so a payment of the full year applies to every installment.
    """
    insts = _installments(account, as_of)
    entries = list(LedgerEntry.objects.filter(account=account, installment__in=insts)
                   .filter(Q(effective_on__lte=as_of) | Q(kind=EntryKind.CHARGE)).order_by("effective_on", "id"))
    by_inst: dict[int, list[LedgerEntry]] = {}
    for e in entries:
        by_inst.setdefault(e.installment_id, []).append(e)
    out = []
    for inst in insts:
        es = by_inst.get(inst.pk, [])
        b = {c: sum((e.amount for e in es if e.component == c), ZERO) for c in Component.values}
        accrued = interest_accrued_total(inst, es, as_of)
        # Interest already charged to the ledger (whatever has since paid or moved it).
        charged = sum((e.amount for e in es if e.kind == EntryKind.INTEREST), ZERO)
        unposted = max(ZERO, accrued - charged) if not inst.bill.is_back_bill else ZERO
        out.append(InstallmentDue(installment=inst, principal=b[Component.PRINCIPAL],
                                  interest_posted=b[Component.INTEREST], interest_accrued=unposted,
                                  demand=b[Component.DEMAND], no_interest=inst.bill.is_back_bill, buckets=b,
                                  as_of=as_of))
    return out


def unapplied_credit(account: Account, *, as_of: date) -> Decimal:
    """Credit balance not yet applied to any installment (a positive number)."""
    s = LedgerEntry.objects.filter(account=account, component=Component.UNAPPLIED,
                                   effective_on__lte=as_of).aggregate(s=Sum("amount"))["s"] or ZERO
    return -round_cents(s)


@dataclass
class AccountPosition:
    dues: list[InstallmentDue]
    credit: Decimal
    ledger_balance: Decimal = ZERO  # every entry effective on or before as_of

    @property
    def principal(self) -> Decimal:
        return sum((d.principal for d in self.dues), ZERO)

    @property
    def interest(self) -> Decimal:
        return sum((d.interest for d in self.dues), ZERO)

    @property
    def demand(self) -> Decimal:
        return sum((d.demand for d in self.dues), ZERO)

    @property
    def total(self) -> Decimal:
        """The balance as of the date: the ledger through that day plus interest earned and not yet
        posted (a later installment's charge is not owed before its issue date)."""
        return self.ledger_balance + sum((d.interest_accrued for d in self.dues), ZERO)

    def overdue(self, as_of: date) -> list[InstallmentDue]:
        """Installments whose interest has started and that still owe principal (not back bills)."""
        return [d for d in self.dues if d.past_due and as_of >= interest_start(d.installment.due_date)]


def account_position(account: Account, *, as_of: date) -> AccountPosition:
    bal = LedgerEntry.objects.filter(account=account, effective_on__lte=as_of).aggregate(s=Sum("amount"))["s"]
    return AccountPosition(dues=account_dues(account, as_of=as_of), credit=unapplied_credit(account, as_of=as_of),
                           ledger_balance=round_cents(bal or ZERO))
