"""The books' invariants (issue 25 "Books the town can stake its name on"), checked on a live database.

One module that ``stormwater books check``, the daily sweep (``jobs/kinds/daily.py``), the opening-balances
import and the property-based tests (tests/receivables/test_books_invariants.py) all call: ``check_books()``
returns a ``BooksReport`` — every break found (the account or run, what broke, the amounts) and a trial balance
by fund and account. Nothing here writes, except ``simulate_payments`` (a payment of "due now" posted in a
savepoint and rolled back; the tests ask for it) and ``books_check_record`` (the result kept, for the homes).

The invariants, each a rule of the ordinance or of the ledger's design:

- **balance** — an account's balance is the sum of its ledger entries effective by the day, plus the interest earned
  and not yet posted (Ch. 295 Art. IV billing ¶C); the set-based figures (``positions.py``) and the reference
  reading (``ledger.account_position``) say the same.
- **buckets** — every cent of the ledger sits in a bucket of one of the account's live installments (principal,
  interest, demand charge) or in its unapplied credit; no bucket is below zero and the unapplied credit is never
  owed money (DESIGN.md: payments apply demand → interest → principal, oldest installment first; billing ¶C–¶D).
- **due now** — "due now" (``selectors.pay_offer``) is what a payment of that amount clears: the issued
  installments' buckets less the credit balance, computed a second way from the balance (and, with
  ``simulate_payments``, by posting the payment in a savepoint and seeing nothing due left).
- **run total** — a bill run's ``bill_count`` and ``total_billed`` are its bills; a bill's installments sum to it;
  each installment of an issued run is charged once, for its amount, to its bill's account; a voided run's
  entries net to zero; a proof's or a discarded run's are none (Ch. 295 Art. IV ¶B; ``utility/billrun``).
- **billed twice** — one live bill per account and period, and a parcel's period billed either as a whole or
  through its association's units, never both (¶B, ¶G; issue 25 defect 1).
- **payments, liens, refunds** — a payment's entries are its amount (and a reversal exactly undoes them); a
  commitment line is its parts and its lien entries; an approved refund voucher's entry is its amount.
- **trial balance** — the ledger as a journal by the town's general-ledger codes (``cashier.gl``: fund-account)
  balances, and the receivable and credit-balance accounts equal the sum of the accounts' buckets.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, fields
from datetime import date
from decimal import Decimal

from django.db import connection, transaction
from django.db.models import Count, Sum
from django.utils import timezone

from stormwater.rules.money import ZERO, fmt, round_cents
from stormwater.utility.models import (Account, Bill, BillRun, Component, EntryKind, Installment, LedgerEntry,
                                       RunState)

from .positions import ALL, AccountFilter, AccountReport, cents_to_money, installment_figures

BUCKETS = (Component.PRINCIPAL, Component.INTEREST, Component.DEMAND)


@dataclass(frozen=True)
class Break:
    """One invariant broken: ``check`` (a stable name), ``what`` in plain words, where (``account`` number, or the
    run or bill), and the amounts that disagree (name → dollars as a string with 2 decimals)."""

    check: str
    what: str
    account: str = ""
    ref: str = ""
    amounts: tuple[tuple[str, str], ...] = ()

    def as_json(self) -> dict:
        return {"check": self.check, "account": self.account, "ref": self.ref, "what": self.what,
                "amounts": dict(self.amounts)}

    def line(self) -> str:
        where = " ".join(x for x in (self.account, self.ref) if x)
        parts = ", ".join(f"{k} {v}" for k, v in self.amounts)
        return f"{where or '(books)'}: {self.what}" + (f" [{parts}]" if parts else "")


def _amounts(**kw) -> tuple[tuple[str, str], ...]:
    return tuple((k, fmt(v) if isinstance(v, Decimal) else str(v)) for k, v in kw.items())


@dataclass(frozen=True)
class TrialLine:
    fund: str
    account: str
    name: str
    debit: Decimal
    credit: Decimal

    @property
    def balance(self) -> Decimal:
        """Debit less credit (a credit balance is negative)."""
        return self.debit - self.credit

    def as_json(self) -> dict:
        return {"fund": self.fund, "account": self.account, "name": self.name, "debit": fmt(self.debit),
                "credit": fmt(self.credit), "balance": fmt(self.balance)}


@dataclass
class BooksReport:
    as_of: date
    breaks: list[Break] = field(default_factory=list)
    trial_balance: list[TrialLine] = field(default_factory=list)
    counts: dict = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        return not self.breaks

    def as_json(self) -> dict:
        return {"as_of": self.as_of.isoformat(), "clean": self.clean, "counts": self.counts,
                "breaks": [b.as_json() for b in self.breaks],
                "trial_balance": [t.as_json() for t in self.trial_balance],
                "trial_balance_total": {"debit": fmt(sum((t.debit for t in self.trial_balance), ZERO)),
                                        "credit": fmt(sum((t.credit for t in self.trial_balance), ZERO))}}


# --- the accounts: balance, buckets, due now -----------------------------------------------------------------------

def _sum_by_account(qs) -> dict[int, Decimal]:
    return {a: round_cents(s or ZERO) for a, s in qs.values_list("account").annotate(s=Sum("amount"))
            .values_list("account", "s")}


def _scope(qs, accounts: AccountFilter):
    if accounts.ids is not None:
        return qs.filter(account_id__in=list(accounts.ids))
    if accounts.subquery is not None:
        q, p = accounts.subquery
        return qs.extra(where=[f"account_id IN ({q})"], params=list(p))
    return qs


def account_breaks(as_of: date, accounts: AccountFilter = ALL, *, reference=True) -> tuple[list[Break], dict]:
    """The balance, bucket and due-now invariants of every account (of ``accounts``) as of ``as_of``.

    Set-based (a constant number of queries) for the town; with ``reference`` (True: every account; or a set of
    account ids) each account is also read by ``ledger.account_position`` and ``selectors.pay_offer`` (the reference
    readings the pages use)."""
    from .ledger import account_position
    from .selectors import pay_offer

    breaks: list[Break] = []
    entries = _scope(LedgerEntry.objects.filter(effective_on__lte=as_of), accounts)
    ledger = _sum_by_account(entries)
    unapplied = _sum_by_account(entries.filter(component=Component.UNAPPLIED))
    # A later installment's charge counts in its buckets once its bill is issued, but is in the ledger from its own
    # issue date (ledger.account_dues): the charges effective after the day, of bills issued by it.
    future = _sum_by_account(_scope(LedgerEntry.objects.filter(
        kind=EntryKind.CHARGE, effective_on__gt=as_of, bill__issue_date__lte=as_of,
        bill__run__state=RunState.ISSUED), accounts))
    not_issued = set(Installment.objects.filter(issue_date__gt=as_of, bill__issue_date__lte=as_of)
                     .values_list("pk", flat=True))
    figs = installment_figures(as_of, accounts)
    report = {r.account_id: r for r in AccountReport("all", as_of=as_of, accounts=accounts)}
    ids = set(ledger) | set(figs) | set(report)
    read = set() if not reference else ids if reference is True else ids & set(reference)
    found = Account.objects.in_bulk(read) if read else {}
    numbers = dict(Account.objects.filter(pk__in=ids).values_list("pk", "number"))
    checked_due = 0
    for aid in sorted(ids):
        num = numbers.get(aid, f"#{aid}")
        insts = figs.get(aid, [])
        led, una, fut = ledger.get(aid, ZERO), unapplied.get(aid, ZERO), future.get(aid, ZERO)
        unposted = sum((f.unposted for f in insts), ZERO)
        for f in insts:
            for comp, v in ((Component.PRINCIPAL, f.principal), (Component.INTEREST, f.interest),
                            (Component.DEMAND, f.demand)):
                if v < 0:
                    breaks.append(Break("bucket", f"the {Component(comp).label.lower()} of installment {f.seq} is "
                                        "below zero", num, f"installment {f.inst_id}", _amounts(**{comp: v})))
        if una > 0:
            breaks.append(Break("bucket", "the unapplied credit is below zero (it owes money on no installment)",
                                num, amounts=_amounts(unapplied_credit=-una)))
        in_buckets = sum((f.principal + f.interest + f.demand for f in insts), ZERO) - fut + una
        if in_buckets != led:
            breaks.append(Break("buckets", "the ledger does not sit in the installments' buckets and the credit "
                                "(an entry on no live installment of the account, or on another account's bill)",
                                num, amounts=_amounts(ledger=led, buckets=in_buckets)))
        r = report.get(aid)
        balance = led + unposted
        if r is None:
            breaks.append(Break("balance", "the account has ledger entries but no position", num,
                                amounts=_amounts(ledger=led)))
            continue
        if r.total != balance:
            breaks.append(Break("balance", "the balance is not the sum of the ledger (with interest earned)", num,
                                amounts=_amounts(balance=r.total, ledger=led, interest_not_posted=unposted)))
        # "Due now" the second way: the balance less what the installments not yet issued owe (their charge is in
        # the ledger from their own issue date), never below zero.
        later = sum((f.principal + f.interest + f.unposted + f.demand for f in insts if f.inst_id in not_issued),
                    ZERO) - fut
        due_expected = max(balance - later, ZERO)
        if aid not in read:
            continue
        account = found[aid]
        pos = account_position(account, as_of=as_of)
        if (pos.total, pos.principal, pos.interest, pos.demand, pos.credit) != \
                (r.total, r.principal, r.interest, r.demand, r.credit):
            breaks.append(Break("balance", "the account's reading and the reports' disagree", num,
                                amounts=_amounts(balance=pos.total, report_balance=r.total, principal=pos.principal,
                                                 report_principal=r.principal, credit=pos.credit,
                                                 report_credit=r.credit)))
        due = pay_offer(account, as_of=as_of, position=pos).due_now  # the same reading, not a second one
        checked_due += 1
        if due != due_expected:
            breaks.append(Break("due_now", "\u201cdue now\u201d is not what the balance says a payment must clear",
                                num, amounts=_amounts(due_now=due, balance=balance, not_yet_issued=later)))
    return breaks, {"accounts": len(ids), "due_now_read": checked_due}


class _Rollback(Exception):
    pass


def due_now_clears(account: Account, *, on: date, acting_user=None) -> Break | None:
    """Post a payment of "due now" in a savepoint (``receivables.payment_post``, the cashier's and the lockbox's
    path) and roll it back: it must leave nothing due now and no overpayment. None when it does."""
    from .selectors import pay_offer
    from .services import payment_post

    due = pay_offer(account, as_of=on).due_now
    if due <= 0:
        return None
    found: list[Break] = []
    try:
        with transaction.atomic():
            p = payment_post(account=account, amount=due, received_on=on, reference="books-check",
                             acting_user=acting_user, confirm_duplicate=True)
            after = pay_offer(account, as_of=on).due_now
            over = -round_cents(p.entries.filter(component=Component.UNAPPLIED).aggregate(s=Sum("amount"))["s"]
                                or ZERO)
            if after != 0 or over != 0:
                found.append(Break("due_now", "a payment of \u201cdue now\u201d does not clear what is due",
                                   account.number, amounts=_amounts(due_now=due, due_after=after, overpaid=over)))
            raise _Rollback
    except _Rollback:
        pass
    return found[0] if found else None


# --- bill runs: totals, installments, charges, billed twice -------------------------------------------------------

def _c(col: str) -> str:
    """A money column (or sum) as integer cents, exact on SQLite (whose decimals are floats) and PostgreSQL."""
    return f"CAST(ROUND(COALESCE({col}, 0) * 100) AS BIGINT)"


def _rows(sql: str, params=()) -> list:
    with connection.cursor() as c:
        c.execute(sql, list(params))
        return c.fetchall()


def run_breaks() -> list[Break]:
    breaks: list[Break] = []
    t = {m: m._meta.db_table for m in (Bill, BillRun, Installment, LedgerEntry, Account)}
    bill, run, inst, le, acct = t[Bill], t[BillRun], t[Installment], t[LedgerEntry], t[Account]
    for r in (BillRun.objects.exclude(state=RunState.PREPARING)
              .annotate(n=Count("bills"), s=Sum("bills__amount")).order_by("pk")):
        s = round_cents(r.s or ZERO)
        if r.n != r.bill_count or s != round_cents(r.total_billed):
            breaks.append(Break("run_total", "the bill run's count or total is not its bills'", "",
                                f"bill run {r.pk} ({r.period_label})",
                                _amounts(total_billed=round_cents(r.total_billed), sum_of_bills=s,
                                         bill_count=r.bill_count, bills=r.n)))
    for bid, number, anum, amount, s in _rows(
            f"SELECT b.id, b.number, a.number, {_c('b.amount')}, {_c('SUM(i.amount)')} FROM {bill} b "
            f"JOIN {acct} a ON a.id = b.account_id LEFT JOIN {inst} i ON i.bill_id = b.id "
            f"GROUP BY b.id, b.number, a.number, b.amount HAVING {_c('b.amount')} <> {_c('SUM(i.amount)')}"):
        breaks.append(Break("run_total", "the bill's installments do not sum to it", anum, f"bill {number}",
                            _amounts(bill=cents_to_money(amount), installments=cents_to_money(s))))
    # Each installment of an issued run: one charge, for its amount, on its bill's account.
    for iid, number, anum, amount, s, n in _rows(
            f"SELECT i.id, b.number, a.number, {_c('i.amount')}, {_c('SUM(e.amount)')}, COUNT(e.id) FROM {inst} i "
            f"JOIN {bill} b ON b.id = i.bill_id JOIN {run} r ON r.id = b.run_id JOIN {acct} a ON a.id = b.account_id "
            f"LEFT JOIN {le} e ON e.installment_id = i.id AND e.kind = %s WHERE r.state = %s "
            f"GROUP BY i.id, b.number, a.number, i.amount "
            f"HAVING COUNT(e.id) <> 1 OR {_c('SUM(e.amount)')} <> {_c('i.amount')}",
            [EntryKind.CHARGE.value, RunState.ISSUED.value]):
        breaks.append(Break("run_total", f"installment {iid} is charged {n} time(s) for another amount", anum,
                            f"bill {number}", _amounts(installment=cents_to_money(amount),
                                                       charged=cents_to_money(s))))
    for eid, number, anum, bnum in _rows(
            f"SELECT e.id, b.number, a.number, ba.number FROM {le} e JOIN {bill} b ON b.id = e.bill_id "
            f"JOIN {acct} a ON a.id = e.account_id JOIN {acct} ba ON ba.id = b.account_id "
            f"WHERE e.account_id <> b.account_id ORDER BY e.id"):
        breaks.append(Break("buckets", f"ledger entry {eid} is on another account's bill (of {bnum})", anum,
                            f"bill {number}"))
    # A voided run's entries net to zero on each installment; a proof's, a discarded or a preparing run's are none.
    for iid, number, anum, state, s, n in _rows(
            f"SELECT i.id, b.number, a.number, r.state, {_c('SUM(e.amount)')}, COUNT(e.id) FROM {le} e "
            f"JOIN {inst} i ON i.id = e.installment_id JOIN {bill} b ON b.id = i.bill_id "
            f"JOIN {run} r ON r.id = b.run_id JOIN {acct} a ON a.id = e.account_id WHERE r.state <> %s "
            f"GROUP BY i.id, b.number, a.number, r.state HAVING r.state <> %s OR {_c('SUM(e.amount)')} <> 0",
            [RunState.ISSUED.value, RunState.VOIDED.value]):
        what = ("money is left on a bill of a voided run" if state == RunState.VOIDED
                else f"a bill of a run that is not issued ({state}) has ledger entries")
        breaks.append(Break("run_total", what, anum, f"bill {number}", _amounts(net=cents_to_money(s), entries=n)))
    breaks.extend(billed_twice())
    return breaks


def billed_twice() -> list[Break]:
    """Live bills (issued runs) covering one thing twice for overlapping periods: the same account; or a parcel
    billed as a whole and through an association unit (its master's units, or its own unit account) — Ch. 295
    Art. IV ¶B (one fee a period), ¶G (a unit owes its share of the master's fee, never its own)."""
    groups: dict[tuple, list] = defaultdict(list)
    rows = Bill.objects.values_list("pk", "number", "account_id", "account__number", "parcel_id", "account__unit_id",
                                    "account__unit__parcel_id", "period_start", "period_end")
    for pk, number, aid, anum, parcel, unit, unit_parcel, start, end in rows.iterator():
        b = (pk, number, aid, anum, start, end)
        groups[("account", aid)].append((b, "account"))
        if unit is None:
            groups[("parcel", parcel)].append((b, "whole"))
        else:
            groups[("parcel", parcel)].append((b, "unit"))
            if unit_parcel:
                groups[("parcel", unit_parcel)].append((b, "unit"))
    seen: set[tuple[int, int]] = set()
    out: list[Break] = []
    for key, items in groups.items():
        if len(items) < 2:
            continue
        for i, (a, ka) in enumerate(items):
            for b, kb in items[i + 1:]:
                if not (a[4] <= b[5] and b[4] <= a[5]):
                    continue
                if key[0] == "parcel" and ka == kb == "unit" and a[2] != b[2]:
                    continue  # two units of one master: each its share
                pair = (min(a[0], b[0]), max(a[0], b[0]))
                if pair in seen:
                    continue
                seen.add(pair)
                out.append(Break("billed_twice", f"bills {a[1]} and {b[1]} bill one period twice", a[3],
                                 f"bill {a[1]}", _amounts(other_account=b[3], period=f"{a[4]}–{a[5]}")))
    return out


# --- payments, liens, refunds ------------------------------------------------------------------------------------

def act_breaks() -> list[Break]:
    from stormwater.cashier.models import RefundState, RefundVoucher

    from .models import CommitmentLine, Payment

    out: list[Break] = []
    paid = defaultdict(lambda: ZERO)
    undone = defaultdict(lambda: ZERO)
    for pid, kind, s in (LedgerEntry.objects.filter(payment__isnull=False, kind__in=[EntryKind.PAYMENT,
                                                                                     EntryKind.REVERSAL])
                         .values_list("payment", "kind").annotate(s=Sum("amount")).values_list("payment", "kind", "s")):
        (paid if kind == EntryKind.PAYMENT else undone)[pid] += round_cents(s or ZERO)
    for p in Payment.objects.select_related("account", "reversal").order_by("pk").iterator():
        amount = round_cents(p.amount)
        if -paid[p.pk] != amount:
            out.append(Break("payment", f"payment {p.pk}'s entries are not its amount", p.account.number,
                             f"payment {p.pk}", _amounts(payment=amount, entries=-paid[p.pk])))
        reversed_ = hasattr(p, "reversal")
        if undone[p.pk] != (-paid[p.pk] if reversed_ else ZERO):
            out.append(Break("payment", f"payment {p.pk}'s reversal does not undo exactly what it paid"
                             if reversed_ else f"payment {p.pk} is not reversed but has reversing entries",
                             p.account.number, f"payment {p.pk}", _amounts(paid=-paid[p.pk], reversed=undone[p.pk])))
    liens = {(a, d): round_cents(s or ZERO) for a, d, s in LedgerEntry.objects.filter(kind=EntryKind.LIEN)
             .values_list("account", "effective_on").annotate(s=Sum("amount"))
             .values_list("account", "effective_on", "s")}
    committed = defaultdict(lambda: ZERO)
    for line in CommitmentLine.objects.select_related("account", "commitment").order_by("pk"):
        parts = line.principal + line.interest + line.demand_charges
        if parts != line.total:
            out.append(Break("commitment", "a commitment line's parts do not add up to its total", line.account.number,
                             f"commitment {line.commitment_id}", _amounts(total=line.total, parts=parts)))
        committed[(line.account_id, line.commitment.committed_on)] += line.total
    numbers = dict(Account.objects.filter(pk__in={a for a, _ in set(committed) | set(liens)})
                   .values_list("pk", "number"))
    for key in sorted(set(committed) | set(liens)):
        if -liens.get(key, ZERO) != committed.get(key, ZERO):
            out.append(Break("commitment", f"the lien entries of {key[1]} are not the amounts committed",
                             numbers.get(key[0], ""), "", _amounts(committed=committed.get(key, ZERO),
                                                                   lien_entries=-liens.get(key, ZERO))))
    for v in RefundVoucher.objects.filter(state=RefundState.APPROVED).select_related("account", "entry"):
        if v.entry is None or v.entry.kind != EntryKind.REFUND or v.entry.amount != v.amount \
                or v.entry.account_id != v.account_id:
            out.append(Break("refund", f"refund voucher {v.number}'s ledger entry is not the voucher",
                             v.account.number, f"voucher {v.number}",
                             _amounts(voucher=v.amount, entry=v.entry.amount if v.entry else ZERO)))
    return out


# --- the trial balance -----------------------------------------------------------------------------------------

def trial_balance(as_of: date) -> list[TrialLine]:
    """Every general-ledger account the stormwater ledger moves, from the first entry through ``as_of``: the
    ledger as one journal by the town's codes (``cashier.gl.gl_journal``, ``TownConfig.gl_*``), summed by account."""
    from stormwater.cashier.gl import gl_journal
    from stormwater.townconfig import town_config

    cfg = town_config()
    names = {f"{cfg.gl_fund}-{getattr(cfg, f.name)}": f.name.removeprefix("gl_").replace("_", " ")
             for f in fields(cfg) if f.name.startswith("gl_") and f.name != "gl_fund"}
    first = LedgerEntry.objects.order_by("effective_on").values_list("effective_on", flat=True).first()
    if first is None:
        return []
    totals: dict[str, list[Decimal]] = {}
    for line in gl_journal(start=first, end=as_of, cfg=cfg):
        t = totals.setdefault(line.account, [ZERO, ZERO])
        t[0] += line.debit
        t[1] += line.credit
    out = []
    for code in sorted(totals):
        fund, _, account = code.partition("-")
        dr, cr = totals[code]
        out.append(TrialLine(fund, account, names.get(code, ""), dr, cr))
    return out


def trial_breaks(lines: list[TrialLine], as_of: date) -> list[Break]:
    from stormwater.townconfig import town_config

    cfg = town_config()
    out = []
    dr, cr = sum((t.debit for t in lines), ZERO), sum((t.credit for t in lines), ZERO)
    if dr != cr:
        out.append(Break("trial_balance", "the trial balance does not balance", amounts=_amounts(debit=dr, credit=cr)))
    by = {f"{t.fund}-{t.account}": t.balance for t in lines}
    held = LedgerEntry.objects.filter(effective_on__lte=as_of)
    receivable = round_cents(held.exclude(component=Component.UNAPPLIED).aggregate(s=Sum("amount"))["s"] or ZERO)
    credit = round_cents(held.filter(component=Component.UNAPPLIED).aggregate(s=Sum("amount"))["s"] or ZERO)
    for field_, sub, name in (("gl_receivable", receivable, "receivable"),
                              ("gl_credit_balances", credit, "credit balances")):
        gl = by.get(f"{cfg.gl_fund}-{getattr(cfg, field_)}", ZERO)
        if gl != sub:
            out.append(Break("trial_balance", f"the general ledger's {name} account is not the accounts' sum",
                             amounts=_amounts(general_ledger=gl, accounts=sub)))
    return out


# --- all of it -------------------------------------------------------------------------------------------------

def check_books(*, as_of: date | None = None, accounts: AccountFilter = ALL, reference=True,
                simulate_payments=False, acting_user=None) -> BooksReport:
    """Every invariant of the books as of ``as_of`` (today by default). ``accounts`` narrows the account checks
    (the run, payment and trial-balance checks are the town's); ``reference`` reads each account the pages' way too;
    ``simulate_payments`` posts each "due now" in a savepoint and rolls it back (``due_now_clears``). Either may be
    a set of account ids instead of True: only those."""
    as_of = as_of or timezone.localdate()
    rep = BooksReport(as_of=as_of)
    acct, counts = account_breaks(as_of, accounts, reference=reference)
    rep.breaks.extend(acct)
    if simulate_payments:
        ids = set(LedgerEntry.objects.filter(effective_on__lte=as_of).values_list("account", flat=True))
        if accounts.ids is not None:
            ids &= set(accounts.ids)
        if simulate_payments is not True:
            ids &= set(simulate_payments)
        for a in Account.objects.filter(pk__in=ids).order_by("pk"):
            b = due_now_clears(a, on=as_of, acting_user=acting_user)
            if b:
                rep.breaks.append(b)
    rep.breaks.extend(run_breaks())
    rep.breaks.extend(act_breaks())
    rep.trial_balance = trial_balance(as_of)
    rep.breaks.extend(trial_breaks(rep.trial_balance, as_of))
    rep.counts = {**counts, "entries": LedgerEntry.objects.filter(effective_on__lte=as_of).count(),
                  "bill_runs": BillRun.objects.count(), "bills": Bill.objects.count()}
    return rep


@transaction.atomic
def books_check_record(*, report: BooksReport, source: str, acting_user, job_id: int | None = None):
    """Keep ``report`` (``receivables.BooksCheck``): the latest one not clean puts its breaks on the Director's and the
    Collector's home (``receivables/workqueue.py``)."""
    from stormwater.audit.services import audit_record

    from .models import BooksCheck

    d = report.as_json()
    rec = BooksCheck.objects.create(as_of=report.as_of, source=source, job_id=job_id, clean=report.clean,
                                    breaks=d["breaks"], counts=d["counts"], trial_balance=d["trial_balance"])
    audit_record(actor=acting_user, action="books.check", obj=rec,
                 data={"as_of": str(report.as_of), "clean": report.clean, "breaks": len(report.breaks)})
    return rec
