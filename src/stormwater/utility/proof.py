"""Reads of a bill run's proof (issue 16): what a Collector or Director looks at before approving.

Counts and totals by property class and ERU band, the differences from last year (per parcel and in total)
and the problems. Each is one SQL statement over the run's bills, whatever their number (set-based, issue 15);
money is summed in whole cents (exact on SQLite too, whose decimal columns are floating point).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.db import connection
from django.db.models import Q

from stormwater.rules.classes import PropertyClass
from stormwater.rules.money import CENT, fmt

from .models import CONVERTED_BILL_PREFIX, Bill, BillRun, RateResolution, RunState

BILL = Bill._meta.db_table
RUN = BillRun._meta.db_table


def _cents(expr: str) -> str:
    return f"CAST(ROUND({expr} * 100) AS BIGINT)"


def _money(cents) -> str:
    return fmt(Decimal(int(cents or 0)) * CENT)


def previous_period_start(start: date) -> date:
    """The same period a year earlier (FY2026 for FY2027): what "last year" means on the proof."""
    try:
        return start.replace(year=start.year - 1)
    except ValueError:  # February 29
        return start.replace(year=start.year - 1, day=28)


def _year_before(label: str, prev: date) -> str:
    """FY2026 for FY2027 (Massachusetts fiscal years); otherwise the period's first day."""
    if len(label) == 6 and label.startswith("FY") and label[2:].isdigit():
        return f"FY{int(label[2:]) - 1}"
    return f"the period from {prev:%B %-d, %Y}"


def eru_bands(resolution: RateResolution) -> list[tuple[int, str]]:
    """(upper ERU or 0, label) of the proof's ERU bands: the flat small-residential rate, then the
    resolution's declining blocks (Ch. 295 Art. IV ¶E, Table 1), then "over the last block" (flagged)."""
    bands = [(0, "Flat rate (small residential)")]
    last = 0
    for b in resolution.blocks.all():
        if b.last_eru is None:
            bands.append((-1, f"{b.first_eru} ERUs and more"))
            return bands
        bands.append((b.last_eru, f"{b.first_eru}–{b.last_eru} ERUs"))
        last = b.last_eru
    bands.append((-1, f"More than {last} ERUs (flagged for review)"))
    return bands


def _band_case(bands: list[tuple[int, str]]) -> str:
    parts = [f"WHEN b.property_class = '{PropertyClass.SMALL_RESIDENTIAL.value}' THEN 0"]
    parts += [f"WHEN b.erus <= {int(top)} THEN {i}" for i, (top, _) in enumerate(bands) if i and top > 0]
    return f"CASE {' '.join(parts)} ELSE {len(bands) - 1} END"


def _by_account() -> str:
    """Per account: in this run (and its cents), billed last year by an issued run (and the cents), billed this
    period by any run not voided or discarded. One scan of the bills of the two periods grouped by account: no join between
    bills, so no plan (even on statistics not yet updated after the proof's bulk write) can make it quadratic."""
    # Last year's bills: those of an issued run, not the open balances converted at go-live (issue 32), which are
    # not the bills the old system sent (each would read as an increase).
    issued = f"r.state = '{RunState.ISSUED.value}' AND b.number NOT LIKE '{CONVERTED_BILL_PREFIX}%%'"
    return (f"(SELECT b.account_id, "
            f"MAX(CASE WHEN b.run_id = %(run)s THEN 1 ELSE 0 END) AS in_run, "
            f"SUM(CASE WHEN b.run_id = %(run)s THEN {_cents('b.amount')} ELSE 0 END) AS this_c, "
            f"MAX(CASE WHEN b.period_start = %(prev)s AND {issued} THEN 1 ELSE 0 END) AS in_last, "
            f"SUM(CASE WHEN b.period_start = %(prev)s AND {issued} THEN {_cents('b.amount')} ELSE 0 END) AS last_c, "
            f"MAX(CASE WHEN b.period_start = %(this)s THEN 1 ELSE 0 END) AS in_period "
            f"FROM {BILL} b JOIN {RUN} r ON r.id = b.run_id "
            f"WHERE r.state NOT IN ('{RunState.VOIDED.value}', '{RunState.DISCARDED.value}') "
            f"AND (b.period_start = %(this)s OR (b.period_start = %(prev)s AND {issued})) GROUP BY b.account_id)")


def _by_account_params(run: BillRun, prev: date) -> dict:
    return {"run": run.pk, "prev": prev, "this": run.period_start}


def _rows(sql: str, params: list) -> list[tuple]:
    with connection.cursor() as c:
        c.execute(sql, params)
        return c.fetchall()


def proof_summary(run: BillRun) -> dict:
    """The proof of ``run`` as JSON (stored on the run when the proof is complete)."""
    bands = eru_bands(run.resolution)
    by_class = []
    totals = {"bills": 0, "erus": 0, "cents": 0, "flagged": 0}
    for cls, band, n, erus, cents, flagged in _rows(
            f"SELECT b.property_class, {_band_case(bands)} AS band, COUNT(*), SUM(b.erus), {_sum_cents('b.amount')}, "
            f"SUM(CASE WHEN b.flagged THEN 1 ELSE 0 END) FROM {BILL} b WHERE b.run_id = %s "
            f"GROUP BY b.property_class, band ORDER BY b.property_class, band", [run.pk]):
        by_class.append({"property_class": cls, "class_label": _class_label(cls), "band": bands[band][1],
                         "bills": n, "erus": int(erus or 0), "total": _money(cents), "flagged": int(flagged or 0)})
        totals["bills"] += n
        totals["erus"] += int(erus or 0)
        totals["cents"] += int(cents or 0)
        totals["flagged"] += int(flagged or 0)
    prev = previous_period_start(run.period_start)
    t = "SUM(CASE WHEN {cond} THEN {what} ELSE 0 END)"
    (new, new_c, same, up, down, last_c, this_c, dropped, dropped_c, last_n, last_all_c), = _rows(
        "SELECT " + ", ".join([
            t.format(cond="in_run = 1 AND in_last = 0", what=1),
            t.format(cond="in_run = 1 AND in_last = 0", what="this_c"),
            t.format(cond="in_run = 1 AND in_last = 1 AND this_c = last_c", what=1),
            t.format(cond="in_run = 1 AND in_last = 1 AND this_c > last_c", what=1),
            t.format(cond="in_run = 1 AND in_last = 1 AND this_c < last_c", what=1),
            t.format(cond="in_run = 1 AND in_last = 1", what="last_c"),
            t.format(cond="in_run = 1 AND in_last = 1", what="this_c"),
            t.format(cond="in_last = 1 AND in_period = 0", what=1),
            t.format(cond="in_last = 1 AND in_period = 0", what="last_c"),
            "SUM(in_last)", "SUM(last_c)"]) + f" FROM {_by_account()} t", _by_account_params(run, prev))
    converted = Bill.all_objects.filter(period_start=prev, run__state=RunState.ISSUED,
                                        number__startswith=CONVERTED_BILL_PREFIX).count()
    last_label = (BillRun.objects.filter(period_start=prev, state=RunState.ISSUED)
                  .values_list("period_label", flat=True).first() or _year_before(run.period_label, prev))
    return {
        "by_class": by_class,
        "totals": {"bills": totals["bills"], "erus": totals["erus"], "total": _money(totals["cents"]),
                   "flagged": totals["flagged"]},
        "last_year": {
            "period_start": str(prev), "period_label": last_label,
            "bills": int(last_n or 0), "total": _money(last_all_c), "converted": converted,
            "same": int(same or 0), "increased": int(up or 0), "decreased": int(down or 0),
            "changed": int(up or 0) + int(down or 0),
            "matched_last_total": _money(last_c), "matched_this_total": _money(this_c),
            "matched_difference": _money(int(this_c or 0) - int(last_c or 0)),
            "new": int(new or 0), "new_total": _money(new_c),
            "dropped": int(dropped or 0), "dropped_total": _money(dropped_c),
            "difference": _money(totals["cents"] - int(last_all_c or 0)),
        },
    }


def _class_label(value: str) -> str:
    try:
        return PropertyClass(value).label
    except ValueError:
        return value


def _sum_cents(expr: str) -> str:
    return f"SUM({_cents(expr)})"


DIFFERENCE_KINDS = ("changed", "new", "dropped")


@dataclass(frozen=True)
class Difference:
    parcel_id: str
    address: str
    owner_name: str
    number: str | None          # this run's bill (None: dropped)
    property_class: str | None
    erus: int | None
    amount: Decimal | None
    last_number: str | None     # last year's bill (None: new)
    last_property_class: str | None
    last_erus: int | None
    last_amount: Decimal | None

    @property
    def difference(self) -> Decimal:
        return (self.amount or Decimal(0)) - (self.last_amount or Decimal(0))


class ProofDifferences:
    """The per-parcel differences of a proof from last year, largest first; sliceable for a Paginator
    (each page is one query)."""

    def __init__(self, run: BillRun, kind: str = "changed"):
        self.run, self.kind = run, kind if kind in DIFFERENCE_KINDS else "changed"
        self.prev = previous_period_start(run.period_start)

    def count(self) -> int:
        ly = (self.run.summary or {}).get("last_year") or {}
        return int(ly.get(self.kind, 0))

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, item):
        if not isinstance(item, slice):
            raise TypeError("ProofDifferences supports slices only")
        start, stop = item.start or 0, item.stop if item.stop is not None else self.count()
        return self.page(offset=start, limit=max(0, stop - start))

    def page(self, *, offset: int, limit: int) -> list[Difference]:
        """One page: the accounts in order (one grouped scan), then their two bills by account (an index)."""
        where = {"changed": "in_run = 1 AND in_last = 1 AND this_c <> last_c",
                 "new": "in_run = 1 AND in_last = 0", "dropped": "in_last = 1 AND in_period = 0"}[self.kind]
        params = _by_account_params(self.run, self.prev) | {"limit": limit, "offset": offset}
        order = [a for (a,) in _rows(
            f"SELECT account_id FROM {_by_account()} t WHERE {where} "
            f"ORDER BY ABS(this_c - last_c) DESC, account_id LIMIT %(limit)s OFFSET %(offset)s", params)]
        if not order:
            return []
        this, last = {}, {}
        for bill in (Bill.all_objects.filter(account_id__in=order)
                     .filter(Q(run=self.run) | (Q(period_start=self.prev, run__state=RunState.ISSUED)
                                                & ~Q(number__startswith=CONVERTED_BILL_PREFIX)))
                     .select_related("parcel")):
            (this if bill.run_id == self.run.pk else last)[bill.account_id] = bill
        out = []
        for a in order:
            b, p = this.get(a), last.get(a)
            any_bill = b or p
            out.append(Difference(any_bill.parcel.parcel_id, any_bill.parcel.address, any_bill.owner_name,
                                  b.number if b else None, b.property_class if b else None, b.erus if b else None,
                                  b.amount if b else None, p.number if p else None, p.property_class if p else None,
                                  p.erus if p else None, p.amount if p else None))
        return out
