"""Set-based positions: what every account owes as of a date, computed by the database in one statement.

``ledger.account_position`` reads one account (four queries) and is the reference: it says what the
ordinance means. This module computes the same figures for any number of accounts with aggregates and
window functions, so the Collector's reports, lockbox files and the owner's pages take a constant
number of queries whatever the size of the town. tests/receivables/test_positions_sql.py holds the two
equal to the cent over randomly generated ledgers, on SQLite and on PostgreSQL.

The rules, the same as ledger.py and rules/interest.py:
- An installment's buckets (principal, interest, demand charge) are sums of its ledger entries effective
  on or before the date; its charge counts in full once the bill is issued. Only the bills of issued runs count
  (``Bill.objects``, as ``ledger.account_dues`` reads them): a voided run's later installment, its charge counted
  from the bill's issue and its reversal only from its own day, is owed by no one (issue 25).
- Interest (Ch. 295 Art. IV billing ¶C): 12 %/yr (the resolution's rate) simple, per day on a 365-day
  year, on the principal as paid down, from the day after the due date rolled past weekends and
  Massachusetts holidays (MGL c.4 §9). A payment received on day D stops interest from day D. A reversal
  counts against the entry it reverses, on that entry's day: in full, the two cancel (a bounced payment never
  stopped interest); in part (a credit application withdrawn in part, issue 25), what stands of it counts; a
  reversed charge is no reduction. Back bills earn none (billing ¶A). Summed exactly and rounded once to the cent, halves up (rules.money.round_cents).
- What is earned and not yet posted (accrued − interest already charged, never below zero) is owed too.
- The balance is every entry effective on or before the date plus that unposted interest.

How the database does it: each installment's interest is the owed principal summed over the days
(cent-days) × rate / 36,500. One GROUP BY over the entries gives it in closed form (each change of the
principal × the days it stands) wherever the principal cannot have gone below zero; for the few others a
running sum (window) gives the principal after each day and LEAD the next day it changes, never counted
below zero. Integer cents throughout (exact on SQLite too, whose decimals are floats), the final
division done on integers so that halves round up exactly as Decimal does.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from functools import lru_cache
from typing import Iterator, Sequence

from django.db import connection
from django.db.models import Min

from stormwater.rules.calendar import is_business_day
from stormwater.rules.interest import interest_start
from stormwater.utility.models import LedgerEntry

AGING_BUCKETS = ("current", "1-30", "31-60", "61-90", "over 90")
_BUCKET_COLS = ("b_current", "b_1_30", "b_31_60", "b_61_90", "b_over_90")
EPOCH = date(1970, 1, 1)
# rate percent × 1000 (3 decimals) × 100 (percent) × 365 (days): interest in cents = cent-days × rate_m / this.
_DIVISOR = 100 * 365 * 1000


def dayno(d: date) -> int:
    """Days since 1970-01-01: the integer day the SQL below counts in."""
    return (d - EPOCH).days


def cents_to_money(c) -> Decimal:
    return Decimal(int(c or 0)).scaleb(-2)


# --- dialect: the few expressions SQLite and PostgreSQL write differently ------------------------------

def _sql_dayno(col: str) -> str:
    if connection.vendor == "postgresql":
        return f"({col} - DATE '1970-01-01')"
    return f"CAST(julianday({col}) - 2440587.5 AS INTEGER)"


def _greatest(a: str, b: str) -> str:
    return f"GREATEST({a}, {b})" if connection.vendor == "postgresql" else f"MAX({a}, {b})"


def _least(a: str, b: str) -> str:
    return f"LEAST({a}, {b})" if connection.vendor == "postgresql" else f"MIN({a}, {b})"


def _cents(col: str) -> str:
    """A DecimalField as integer cents (SQLite stores decimals as floats: round before the cast)."""
    return f"CAST(ROUND({col} * 100) AS BIGINT)"


def _bool(col: str) -> str:
    """A boolean column as 0/1 (PostgreSQL booleans do not add up)."""
    return f"(CASE WHEN {col} THEN 1 ELSE 0 END)"


def _date_param(d: date):
    return connection.ops.adapt_datefield_value(d)


# --- rolled due dates -----------------------------------------------------------------------------------

@lru_cache(maxsize=16)
def _rolled_starts(first: date, through: date) -> tuple[tuple[int, int], ...]:
    """(due day, first interest day) of every day in [first, through) that is not a business day: the
    due dates whose interest starts later than the next day (MGL c.4 §9). Other days: due + 1."""
    out = []
    d = first
    while d < through:
        if not is_business_day(d):
            out.append((dayno(d), dayno(interest_start(d))))
        d += timedelta(days=1)
    return tuple(out)


def _roll_values(as_of: date) -> str:
    """The VALUES of the rolled due dates that can matter on ``as_of``: due dates before it (a later one
    starts interest after ``as_of`` however it rolls), from the first day anything was posted (an
    installment is due after its charge). One indexed MIN query; integers written into the SQL."""
    first = LedgerEntry.objects.aggregate(m=Min("effective_on"))["m"]
    rows = _rolled_starts(first, as_of) if first else ()
    if not rows:
        rows = ((-1, -1),)  # VALUES needs a row; no installment is due on day -1
    return "VALUES " + ", ".join(f"({int(a)}, {int(b)})" for a, b in rows)


# --- the statement -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class AccountFilter:
    """Which accounts: all (None), a list of account ids, or an SQL subquery selecting account ids."""

    ids: Sequence[int] | None = None
    subquery: tuple[str, list] | None = None

    def sql(self, col: str) -> tuple[str, list]:
        if self.subquery is not None:
            q, p = self.subquery
            return f" AND {col} IN ({q})", list(p)
        if self.ids is not None:
            ids = [int(i) for i in self.ids] or [-1]
            return f" AND {col} IN ({', '.join(['%s'] * len(ids))})", ids
        return "", []


ALL = AccountFilter()


def _full_join_ok() -> bool:
    """SQLite has FULL OUTER JOIN from 3.39; PostgreSQL always."""
    if connection.vendor != "sqlite":
        return True
    return connection.Database.sqlite_version_info >= (3, 39, 0)


def positions_cte(as_of: date, accounts: AccountFilter = ALL) -> tuple[str, list]:
    """``WITH …``: the CTEs ``pi`` (one row per installment of a bill issued by ``as_of``) and ``pa``
    (one row per account with entries or installments), every amount in integer cents.

    inst: inst_id, account_id, bill_id, seq, due_date, bill_issue, issue_n, back, rate_m, start_n
    pi: account_id, inst_id, start_n, back, issue_n, due_date, principal, interest (posted), unposted (earned,
        not yet posted), demand, owed, issued, late (days past due)
    pa: account_id, principal, interest (posted + unposted), demand, unposted, balance (ledger), credit,
        total, b_current … b_over_90, oldest_due, overdue (1 if some installment earns interest and owes
        principal)

    Written for the planner: the one pass over every installment's entries is a plain GROUP BY (PostgreSQL
    runs it in parallel workers, as it would the simplest aggregate); its interest is in closed form
    (Σ change of principal × days), exact while the principal never goes below zero — guaranteed when the
    reductions do not exceed the charges. Only the other installments (rare: an abatement refunded, a
    charge reversed …) are counted day by day with window functions. ``inst`` (one row an installment) is
    inlined where it is used on PostgreSQL and materialized on SQLite, joined on its key either way.
    """
    asof_n = dayno(as_of)
    a = _date_param(as_of)
    f_bill, p_bill = accounts.sql("b.account_id")
    f_led, p_led = accounts.sql("e.account_id")
    dn = _sql_dayno
    max0 = lambda x: f"(CASE WHEN ({x}) > 0 THEN ({x}) ELSE 0 END)"  # noqa: E731
    interest = (f"(t / {_DIVISOR}) * rate_m + "
                f"(2 * (t %% {_DIVISOR}) * rate_m + {_DIVISOR}) / {2 * _DIVISOR}")
    seg_days = max0(f"{_least(f'COALESCE(next_n, {asof_n + 1})', str(asof_n + 1))} - {_greatest('day_n', 'start_n')}")
    cents = _cents("e.amount")
    is_charge = "(e.kind = 'charge' AND e.component = 'principal')"
    # a principal change that counts for interest: not a charge; a reversal counts against what it reverses (on
    # that entry's day, ``red_day``) unless that is a charge or on another installment (ledger.interest_accrued_total)
    is_red = ("(e.component = 'principal' AND e.kind <> 'charge' AND (e.reverses_id IS NULL OR "
              "(o.kind <> 'charge' AND o.installment_id = e.installment_id)))")
    red_day = f"COALESCE({dn('o.effective_on')}, {dn('e.effective_on')})"
    rev_join = "LEFT JOIN utility_ledgerentry o ON o.id = e.reverses_id"
    # PostgreSQL: inst is joined inline where it is used (twice), so the scans and joins can run in parallel
    # workers (a materialized CTE cannot); it is one join of four tables on their keys.
    inline = "NOT MATERIALIZED " if connection.vendor == "postgresql" else ""
    if _full_join_ok():
        pa_from = "pia FULL OUTER JOIN led ON led.account_id = pia.account_id"
    else:  # old SQLite: every account of either side, then both sides joined to it
        pa_from = ("(SELECT account_id FROM pia UNION SELECT account_id FROM led) ids "
                   "LEFT JOIN pia ON pia.account_id = ids.account_id LEFT JOIN led ON led.account_id = ids.account_id")
    sql = f"""
WITH inst AS {inline}(
  SELECT i.id AS inst_id, b.account_id, b.id AS bill_id, i.seq, i.due_date, b.issue_date AS bill_issue,
         {dn('i.issue_date')} AS issue_n, {_bool('b.is_back_bill')} AS back,
         CAST(ROUND(res.interest_rate_percent * 1000) AS BIGINT) AS rate_m,
         COALESCE(roll.start_n, {dn('i.due_date')} + 1) AS start_n
  FROM utility_installment i
  JOIN utility_bill b ON b.id = i.bill_id
  JOIN utility_billrun r ON r.id = b.run_id
  JOIN utility_rateresolution res ON res.id = r.resolution_id
  LEFT JOIN (SELECT column1 AS due_n, column2 AS start_n FROM ({_roll_values(as_of)}) v) roll
         ON roll.due_n = {dn('i.due_date')}
  WHERE b.issue_date <= %s AND r.state = 'issued'{f_bill}
),
lin AS (
  -- Every installment with its ledger movements, summed in one pass (a GROUP BY PostgreSQL can run in
  -- parallel workers): buckets (principal, interest, demand), interest charged, and the principal that
  -- earns interest. The change of that principal (delta): a charge counts in full from the start (day -1);
  -- payments, abatements, liens, credits and refunds from their day; a reversal from the day of the entry it
  -- reverses (a reversal in full and its entry cancel). t_lin: the owed principal summed over the days from the first day of interest through
  -- as_of (cent-days) = Σ delta × its days — exact while the principal never goes below zero, which holds
  -- whenever the reductions (down) do not exceed the charges; the others are counted day by day below.
  SELECT MAX(inst.account_id) AS account_id, inst.inst_id, MAX(inst.start_n) AS start_n,
         MAX(inst.rate_m) AS rate_m, MAX(inst.back) AS back, MAX(inst.issue_n) AS issue_n,
         MAX(inst.due_date) AS due_date,
         CAST(SUM(CASE WHEN e.component = 'principal' THEN {cents} ELSE 0 END) AS BIGINT) AS principal,
         CAST(SUM(CASE WHEN e.component = 'interest' THEN {cents} ELSE 0 END) AS BIGINT) AS interest,
         CAST(SUM(CASE WHEN e.component = 'demand' THEN {cents} ELSE 0 END) AS BIGINT) AS demand,
         CAST(SUM(CASE WHEN e.kind = 'interest' THEN {cents} ELSE 0 END) AS BIGINT) AS charged,
         CAST(SUM(CASE WHEN {is_charge} THEN {cents} ELSE 0 END) AS BIGINT) AS charge,
         CAST(SUM(CASE WHEN {is_red} AND {cents} < 0 THEN -{cents} ELSE 0 END) AS BIGINT) AS down,
         CAST(SUM(CASE WHEN {is_charge} THEN {cents} * {max0(f'{asof_n + 1} - inst.start_n')}
                       WHEN {is_red} THEN {cents} * {max0(f'{asof_n + 1} - ' + _greatest(red_day, 'inst.start_n'))}
                       ELSE 0 END) AS BIGINT) AS t_lin
  FROM inst
  LEFT JOIN utility_ledgerentry e ON e.installment_id = inst.inst_id AND (e.effective_on <= %s OR e.kind = 'charge')
  {rev_join}
  GROUP BY inst.inst_id
),
exc AS (
  SELECT inst_id, start_n FROM lin WHERE down > charge AND back = 0 AND start_n <= {asof_n}
),
win AS (
  -- The installments whose principal may have gone below zero on some day (an abatement refunded, a
  -- charge reversed …): the principal day by day, never counted below zero. bal: the principal after the
  -- whole day (the frame takes in the day's peers); next_n: the next day it may change (only the day's last
  -- row reaches the next day: the others count no days).
  SELECT inst_id, CAST(SUM({max0('bal')} * {seg_days}) AS BIGINT) AS t
  FROM (
    SELECT m.*, SUM(delta) OVER w AS bal, LEAD(day_n) OVER w AS next_n
    FROM (
      SELECT e.installment_id AS inst_id, exc.start_n,
             CASE WHEN {is_charge} THEN -1 ELSE {red_day} END AS day_n, {cents} AS delta
      FROM utility_ledgerentry e
      JOIN exc ON exc.inst_id = e.installment_id
      {rev_join}
      WHERE (e.effective_on <= %s OR e.kind = 'charge') AND ({is_charge} OR {is_red})
      UNION ALL
      SELECT inst_id, start_n, start_n, 0 FROM exc
    ) m
    WINDOW w AS (PARTITION BY inst_id ORDER BY day_n)
  ) s
  GROUP BY inst_id
),
per AS (
  SELECT lin.account_id, lin.inst_id, lin.start_n, lin.rate_m, lin.back, lin.issue_n, lin.due_date, lin.principal,
         lin.interest, lin.demand, lin.charged, COALESCE(win.t, lin.t_lin) AS t
  FROM lin LEFT JOIN win ON win.inst_id = lin.inst_id
),
pi1 AS (
  SELECT account_id, inst_id, start_n, back, issue_n, due_date, principal, interest, demand,
         CASE WHEN back = 1 OR start_n > {asof_n} THEN 0 ELSE {max0(f'{interest} - charged')} END AS unposted
  FROM per
),
pi AS (
  SELECT pi1.*, principal + interest + unposted + demand AS owed,
         CASE WHEN issue_n <= {asof_n} THEN 1 ELSE 0 END AS issued,
         {asof_n} - start_n + 1 AS late
  FROM pi1
),
pia AS (
  SELECT account_id,
         CAST(SUM(principal) AS BIGINT) AS principal, CAST(SUM(interest + unposted) AS BIGINT) AS interest,
         CAST(SUM(demand) AS BIGINT) AS demand, CAST(SUM(unposted) AS BIGINT) AS unposted,
         CAST(SUM(CASE WHEN owed > 0 AND issued = 1 AND late <= 0 THEN owed ELSE 0 END) AS BIGINT) AS b_current,
         CAST(SUM(CASE WHEN owed > 0 AND issued = 1 AND late BETWEEN 1 AND 30 THEN owed ELSE 0 END) AS BIGINT)
           AS b_1_30,
         CAST(SUM(CASE WHEN owed > 0 AND issued = 1 AND late BETWEEN 31 AND 60 THEN owed ELSE 0 END) AS BIGINT)
           AS b_31_60,
         CAST(SUM(CASE WHEN owed > 0 AND issued = 1 AND late BETWEEN 61 AND 90 THEN owed ELSE 0 END) AS BIGINT)
           AS b_61_90,
         CAST(SUM(CASE WHEN owed > 0 AND issued = 1 AND late > 90 THEN owed ELSE 0 END) AS BIGINT) AS b_over_90,
         MIN(CASE WHEN owed > 0 AND issued = 1 AND late > 0 THEN due_date END) AS oldest_due,
         MAX(CASE WHEN principal > 0 AND back = 0 AND start_n <= {asof_n} THEN 1 ELSE 0 END) AS overdue
  FROM pi GROUP BY account_id
),
led AS (
  SELECT e.account_id, CAST(SUM({cents}) AS BIGINT) AS balance,
         CAST(SUM(CASE WHEN e.component = 'unapplied' THEN {cents} ELSE 0 END) AS BIGINT) AS unapplied
  FROM utility_ledgerentry e WHERE e.effective_on <= %s{f_led}
  GROUP BY e.account_id
),
pa AS (
  SELECT COALESCE(pia.account_id, led.account_id) AS account_id,
         COALESCE(pia.principal, 0) AS principal, COALESCE(pia.interest, 0) AS interest,
         COALESCE(pia.demand, 0) AS demand, COALESCE(pia.unposted, 0) AS unposted,
         COALESCE(led.balance, 0) AS balance, -COALESCE(led.unapplied, 0) AS credit,
         COALESCE(led.balance, 0) + COALESCE(pia.unposted, 0) AS total,
         COALESCE(pia.b_current, 0) AS b_current, COALESCE(pia.b_1_30, 0) AS b_1_30,
         COALESCE(pia.b_31_60, 0) AS b_31_60, COALESCE(pia.b_61_90, 0) AS b_61_90,
         COALESCE(pia.b_over_90, 0) AS b_over_90, pia.oldest_due, COALESCE(pia.overdue, 0) AS overdue
  FROM {pa_from}
)"""
    return sql, [a, *p_bill, a, a, a, *p_led]


# --- per installment (payments, lockbox files) ----------------------------------------------------------

@dataclass
class InstallmentFigures:
    """One installment as of a date (cents as Decimal dollars). ``interest`` is what is posted; what is
    earned and not yet posted is ``unposted``."""

    inst_id: int
    account_id: int
    bill_id: int
    seq: int
    due_date: date
    principal: Decimal
    interest: Decimal
    unposted: Decimal
    demand: Decimal
    back_bill: bool


def installment_figures(as_of: date, accounts: AccountFilter) -> dict[int, list[InstallmentFigures]]:
    """account id → its installments of bills issued by ``as_of``, oldest first (the order payments apply
    in: due date, then bill issue date, bill, installment — as ``ledger.account_dues``). Two queries."""
    cte, params = positions_cte(as_of, accounts)
    out: dict[int, list[InstallmentFigures]] = {}
    with connection.cursor() as c:
        c.execute(cte + """
SELECT pi.inst_id, pi.account_id, inst.bill_id, inst.seq, pi.due_date, pi.principal, pi.interest, pi.unposted,
       pi.demand, pi.back
FROM pi JOIN inst ON inst.inst_id = pi.inst_id
ORDER BY pi.account_id, pi.due_date, inst.bill_issue, inst.bill_id, inst.seq""", params)
        for iid, aid, bid, seq, due, pr, it, un, dm, back in c.fetchall():
            out.setdefault(aid, []).append(InstallmentFigures(
                iid, aid, bid, seq, _as_date(due), cents_to_money(pr), cents_to_money(it), cents_to_money(un),
                cents_to_money(dm), bool(back)))
    return out


def _as_date(v) -> date | None:
    if v is None or isinstance(v, date):
        return v
    return date.fromisoformat(str(v)[:10])


# --- per account (reports, owner pages) ----------------------------------------------------------------

@dataclass
class AccountFigures:
    """One account's position as of a date, as the reports show it (money as Decimal)."""

    account_id: int
    number: str
    parcel_id: str
    address: str
    owner_name: str
    mailing_address: str  # the billed-to owner's (the unit owner's for a condominium unit), on one line (", ")
    principal: Decimal
    interest: Decimal
    demand: Decimal
    credit: Decimal
    total: Decimal
    buckets: dict[str, Decimal]
    oldest_due: date | None
    overdue: bool
    extra: dict = field(default_factory=dict)


_ACCOUNT_COLS = ("pa.account_id", "a.number", "p.parcel_id", "p.address", "COALESCE(uo.name, o.name, '')",
                 "COALESCE(uo.mailing_address, o.mailing_address, '')",
                 "pa.principal", "pa.interest", "pa.demand", "pa.credit", "pa.total", *(f"pa.{c}" for c in _BUCKET_COLS),
                 "pa.oldest_due", "pa.overdue")
_ACCOUNT_JOINS = """
JOIN utility_account a ON a.id = pa.account_id
JOIN parcels_parcel p ON p.id = a.parcel_id
LEFT JOIN parcels_owner o ON o.id = p.owner_id
LEFT JOIN parcels_associationunit u ON u.id = a.unit_id
LEFT JOIN parcels_owner uo ON uo.id = u.owner_id"""


def _figures(row: Sequence) -> AccountFigures:
    aid, number, pid, address, owner, mailing, pr, it, dm, cr, tot, *rest = row
    buckets = {k: cents_to_money(v) for k, v in zip(AGING_BUCKETS, rest[:5])}
    oldest, overdue = rest[5], rest[6]
    mailing = ", ".join(x.strip() for x in (mailing or "").splitlines() if x.strip())  # one line: one CSV row
    return AccountFigures(aid, number, pid, address, owner, mailing, cents_to_money(pr), cents_to_money(it),
                          cents_to_money(dm), cents_to_money(cr), cents_to_money(tot), buckets, _as_date(oldest),
                          bool(overdue), {"more": rest[7:]} if len(rest) > 7 else {})


# Which accounts each report lists (the same conditions as the per-account reference in selectors.py).
REPORT_WHERE = {
    # every account that owes or is owed something
    "aging": "(pa.total <> 0 OR pa.b_current <> 0 OR pa.b_1_30 <> 0 OR pa.b_31_60 <> 0 OR pa.b_61_90 <> 0 "
             "OR pa.b_over_90 <> 0)",
    # past due and owing
    "delinquency": "(pa.oldest_due IS NOT NULL AND pa.total > 0)",
    # billing ¶D: interest accrues, no demand charge outstanding, something owed
    "demand": "(pa.overdue = 1 AND pa.demand <= 0 AND pa.total > 0)",
    "all": "1 = 1",
}


@dataclass(frozen=True)
class ReportTotals:
    count: int
    buckets: dict[str, Decimal]
    principal: Decimal
    interest: Decimal
    demand: Decimal
    total: Decimal


class PositionReport:
    """Rows of a report over account positions as of a date: a lazy, pageable list (the protocol Django's
    Paginator uses: ``count()`` and slicing), totals over all its rows (not just a page), and a streaming
    iterator for exports. A page is one query, the totals one more; exports stream from a server-side
    cursor. Subclasses say which rows (``where``), what else each row carries and in what order."""

    where = "1 = 1"
    extra_from = ""
    extra_cols: tuple[str, ...] = ()
    order_by = "a.number"

    def __init__(self, *, as_of: date, accounts: AccountFilter = ALL):
        self.as_of, self.accounts = as_of, accounts
        self._totals: ReportTotals | None = None
        self._cte: tuple[str, list] | None = None
        self._page: tuple[int, int, list] | None = None

    def where_params(self) -> list:
        return []

    def row(self, r: Sequence) -> AccountFigures:
        return _figures(r)

    def _sql(self) -> tuple[str, list]:
        if self._cte is None:
            self._cte = positions_cte(self.as_of, self.accounts)
        return self._cte

    def _from(self) -> str:
        return f"FROM pa{_ACCOUNT_JOINS}{self.extra_from}\nWHERE {self.where}"

    def _select(self) -> tuple[str, list]:
        cte, params = self._sql()
        cols = ", ".join((*_ACCOUNT_COLS, *self.extra_cols))
        return (cte + f"\nSELECT {cols} {self._from()} ORDER BY {self.order_by}"), [*params, *self.where_params()]

    _SUMS = (*_BUCKET_COLS, "principal", "interest", "demand", "total")

    def _set_totals(self, n, sums) -> None:
        self._totals = ReportTotals(
            int(n), {k: cents_to_money(v) for k, v in zip(AGING_BUCKETS, sums[:5])}, cents_to_money(sums[5]),
            cents_to_money(sums[6]), cents_to_money(sums[7]), cents_to_money(sums[8]))

    def totals(self) -> ReportTotals:
        """Count and sums over every row of the report (one query, unless a page already brought them)."""
        if self._totals is None:
            cte, params = self._sql()
            sums = ", ".join(f"CAST(COALESCE(SUM(pa.{c}), 0) AS BIGINT)" for c in self._SUMS)
            with connection.cursor() as c:
                c.execute(cte + f"\nSELECT COUNT(*), {sums} FROM pa{self.extra_from} WHERE {self.where}",
                          [*params, *self.where_params()])
                n, *s = c.fetchone()
            self._set_totals(n, s)
        return self._totals

    def count(self) -> int:
        return self.totals().count

    def __len__(self) -> int:
        return self.count()

    def prefetch(self, start: int, stop: int) -> None:
        """Read the rows [start, stop) and the totals over all rows in one statement: window aggregates over
        the whole report, computed before the LIMIT, so a page of a report is one query. The owners' names
        and the addresses are joined to the page's rows only, after the LIMIT."""
        cte, params = self._sql()
        keys = [k.strip() for k in self.order_by.split(",")]
        key_cols = [k.split()[0] for k in keys]
        inner_cols = ["pa.account_id", "a.number AS a_number", "a.parcel_id AS a_parcel", "a.unit_id AS a_unit",
                      *(f"pa.{c}" for c in ("principal", "interest", "demand", "credit", "total", *_BUCKET_COLS,
                                            "oldest_due", "overdue")),
                      *(f"{c} AS x{i}" for i, c in enumerate(self.extra_cols)),
                      *(f"{c} AS k{i}" for i, c in enumerate(key_cols)),
                      "COUNT(*) OVER () AS w_count",
                      *(f"CAST(SUM(pa.{c}) OVER () AS BIGINT) AS w_{c}" for c in self._SUMS)]
        outer_cols = ["q.account_id", "q.a_number", "p.parcel_id", "p.address", "COALESCE(uo.name, o.name, '')",
                      "COALESCE(uo.mailing_address, o.mailing_address, '')",
                      *(f"q.{c}" for c in ("principal", "interest", "demand", "credit", "total", *_BUCKET_COLS,
                                           "oldest_due", "overdue")),
                      *(f"q.x{i}" for i in range(len(self.extra_cols))),
                      "q.w_count", *(f"q.w_{c}" for c in self._SUMS)]
        outer_order = ", ".join(f"q.k{i}{k[len(key_cols[i]):]}" for i, k in enumerate(keys))
        sql = (cte + f"""
SELECT {', '.join(outer_cols)} FROM (
  SELECT {', '.join(inner_cols)}
  FROM pa JOIN utility_account a ON a.id = pa.account_id{self.extra_from}
  WHERE {self.where} ORDER BY {self.order_by} LIMIT %s OFFSET %s
) q
JOIN parcels_parcel p ON p.id = q.a_parcel
LEFT JOIN parcels_owner o ON o.id = p.owner_id
LEFT JOIN parcels_associationunit u ON u.id = q.a_unit
LEFT JOIN parcels_owner uo ON uo.id = u.owner_id
ORDER BY {outer_order}""")
        with connection.cursor() as c:
            c.execute(sql, [*params, *self.where_params(), max(0, stop - start), start])
            raw = c.fetchall()
        k = len(_ACCOUNT_COLS) + len(self.extra_cols)
        if raw:
            self._set_totals(raw[0][k], raw[0][k + 1:])
        self._page = (start, stop, [self.row(r[:k]) for r in raw])

    def __getitem__(self, k):
        if isinstance(k, int):
            rows = self[k:k + 1]
            if not rows:
                raise IndexError(k)
            return rows[0]
        start = k.start or 0
        if k.stop is None:
            return list(self)[start:]
        if not self._page_covers(start, k.stop):
            self.prefetch(start, k.stop)
        s0, _, rows = self._page
        return rows[start - s0:k.stop - s0]

    def _page_covers(self, start: int, stop: int) -> bool:
        """Whether the rows read last hold [start, stop) (Paginator trims the last page to the count)."""
        if self._page is None:
            return False
        s0, s1, rows = self._page
        return s0 <= start and (stop <= s1 or s0 + len(rows) < s1)

    def __iter__(self) -> Iterator[AccountFigures]:
        """Every row, streamed (a server-side cursor on PostgreSQL: memory stays flat)."""
        sql, params = self._select()
        with connection.chunked_cursor() as c:
            c.execute(sql, params)
            while True:
                rows = c.fetchmany(2000)
                if not rows:
                    break
                for r in rows:
                    yield self.row(r)


class AccountReport(PositionReport):
    """Accounts of one report (``REPORT_WHERE``: aging, delinquency, demand, all) in account order."""

    def __init__(self, kind: str, *, as_of: date, accounts: AccountFilter = ALL):
        if kind not in REPORT_WHERE:
            raise ValueError(f"report: one of {', '.join(REPORT_WHERE)}")
        super().__init__(as_of=as_of, accounts=accounts)
        self.kind = kind
        self.where = REPORT_WHERE[kind]
