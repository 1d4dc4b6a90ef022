"""What an owner owes: ONE figure, named "Due now" on every page (issue 25 item 5).

Before issue 25 the parcel list and the owner's home showed the posted ledger ($78.47) while the account, the bill,
the cashier's window and the lien certificate showed the ledger with the interest earned to the day ($79.03): two
answers to "what do I owe". The one figure is the position's total (``ledger.account_position(...).total``; the
set-based ``positions.positions_cte``'s ``pa.total``): every ledger entry effective by the day plus the interest
earned and not yet posted (Ch. 295 Art. IV billing ¶C), demand charges included (¶D), less credit — what a payment
of that amount clears (a later installment not yet issued is not in it: ¶B). Below zero it is a credit.

- ``owed(account, as_of=…)``: the figure with its parts (principal, interest to date, demand charges, credit, and
  what is billed but not yet due), for one account — the account page, the bill, the cashier's window, the lien
  certificate and the work queue read it (or ``account_position``, which it is);
- ``DueNow(ref, as_of=…)``: the same figure as a query expression (a correlated subquery over the positions SQL),
  for the lists: the parcels list (a parcel sums its accounts: a condominium's units), the accounts list, the
  owner's home; they show, filter, sort, total and export it.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.db.models import Expression, F
from django.db.models.expressions import SQLiteNumericMixin

from stormwater.rules.money import ZERO, round_cents
from stormwater.web.lists import MONEY_FIELD

from .ledger import account_position
from .positions import AccountFilter, positions_cte

LABEL = "Due now"


@dataclass(frozen=True)
class Owed:
    """One account's "Due now" as of a day, with its parts (they add up: principal + interest + demand − credit
    = due_now, interest being to the day)."""

    as_of: date
    due_now: Decimal    # the one figure (negative: a credit)
    principal: Decimal
    interest: Decimal   # posted and earned to the day
    demand: Decimal
    credit: Decimal     # unapplied credit (positive)
    later: Decimal      # billed, its installment not yet issued: not due now (¶B)

    @property
    def in_credit(self) -> bool:
        return self.due_now < 0


def owed(account, *, as_of: date, pos=None) -> Owed:
    """The one figure of ``account`` on ``as_of`` (``pos``: its ``account_position`` if already read)."""
    pos = pos or account_position(account, as_of=as_of)
    later = sum((d.total for d in pos.dues if not d.issued), ZERO)
    return Owed(as_of=as_of, due_now=round_cents(pos.total), principal=pos.principal, interest=pos.interest,
                demand=pos.demand, credit=pos.credit, later=round_cents(later))


def due_now_total(queryset, *, as_of: date, by: str = "account") -> Decimal:
    """"Due now" summed over every row of ``queryset`` (accounts, or parcels with ``by="parcel"``) in one statement:
    the positions SQL over the rows' accounts (a list's totals: summing ``DueNow`` row by row costs a subquery a
    row, ~0.6 ms each; this is one set-based pass)."""
    from django.db import connection

    from .positions import cents_to_money

    sql, params = queryset.order_by().values("pk").query.sql_with_params()
    keys = (sql, list(params)) if by == "account" else (
        f"SELECT dn_t.id FROM utility_account dn_t WHERE dn_t.parcel_id IN ({sql})", list(params))
    cte, p = positions_cte(as_of, AccountFilter(subquery=keys))
    with connection.cursor() as c:
        c.execute(cte + "\nSELECT CAST(COALESCE(SUM(pa.total), 0) AS BIGINT) FROM pa", p)
        return cents_to_money(c.fetchone()[0])


def parcel_due_now_total(queryset) -> Decimal:
    """``due_now_total`` of a parcels query, today (the parcels list's total, through ``parcels.fees``)."""
    from django.utils import timezone

    return due_now_total(queryset, as_of=timezone.localdate(), by="parcel")


def parcel_due_now():
    """"Due now" of each parcel of a parcels query (its accounts summed), today (the parcels list, through
    ``parcels.fees.FeeProvider.parcel_balance``)."""
    from django.utils import timezone

    return DueNow(F("pk"), as_of=timezone.localdate(), by="parcel")


class DueNow(SQLiteNumericMixin, Expression):
    """"Due now" of the row's account(s) as a query expression: ``DueNow(F("pk"), as_of=d)`` on accounts,
    ``DueNow(F("pk"), as_of=d, by="parcel")`` on parcels (the sum over the parcel's accounts). The positions SQL
    (``positions.positions_cte``) narrowed to the outer row's accounts, so a row costs its own entries only; 0 for
    a row without any account or entry. Comparable with ``balance_filter`` (half a cent either way); on SQLite cast to
    NUMERIC, as Django does for its own decimal expressions (a float compared with the bound value would not be)."""

    output_field = MONEY_FIELD
    contains_aggregate = False

    def __init__(self, ref=None, *, as_of: date, by: str = "account"):
        super().__init__(output_field=MONEY_FIELD)
        if by not in ("account", "parcel"):
            raise ValueError("by: account or parcel")
        self.ref = ref if ref is not None else F("pk")
        self.as_of, self.by = as_of, by

    def get_source_expressions(self):
        return [self.ref]

    def set_source_expressions(self, exprs):
        (self.ref,) = exprs

    def as_sql(self, compiler, connection):
        ref_sql, ref_params = compiler.compile(self.ref)
        if self.by == "account":
            keys = (f"SELECT {ref_sql}", list(ref_params))
        else:
            keys = (f"SELECT dn_a.id FROM utility_account dn_a WHERE dn_a.parcel_id = {ref_sql}", list(ref_params))
        cte, params = positions_cte(self.as_of, AccountFilter(subquery=keys))
        # integer cents → dollars (SQLite: a float that the DecimalField's converter rounds to the cent)
        return f"({cte}\nSELECT COALESCE(SUM(pa.total), 0) * 0.01 FROM pa)", params


# Issue 25 item 6: a voided run's charge and its reversal are shown to the owner with this, never the reason the
# Director typed when voiding (an internal note); staff see the entries as posted.
WITHDRAWN = "Withdrawn by the Town"
VOID_MEMO_PREFIX = "Void of bill run "  # utility.billrun.undo._post_reversals writes it


def ledger_entries_for_user(account, *, user, as_of: date):
    """The account's ledger through ``as_of`` as ``user`` reads it: each entry with ``shown_memo`` — its memo, or
    ``WITHDRAWN`` for an owner where the entry belongs to a bill of a voided run (the charge and its reversal)."""
    from stormwater.utility.models import RunState

    entries = list(account.entries.filter(effective_on__lte=as_of).select_related("bill__run")
                   .order_by("effective_on", "id"))
    staff = getattr(user, "is_staff_role", False)
    for e in entries:
        # the credit balance a void gives back has no bill: its memo names the void (utility.billrun.undo)
        voided = ((e.bill_id is not None and e.bill.run.state == RunState.VOIDED)
                  or e.memo.startswith(VOID_MEMO_PREFIX))
        e.shown_memo = WITHDRAWN if voided and not staff else e.memo
    return entries
