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

from stormwater.parcels.models import Parcel
from stormwater.rules.classes import PropertyClass
from stormwater.rules.money import CENT, fmt

from .models import Bill, BillRun, RateResolution, RunState

BILL = Bill._meta.db_table
RUN = BillRun._meta.db_table
PARCEL = Parcel._meta.db_table


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


def _live_bills_of(start_param: str = "%s") -> str:
    """Issued, not voided bills of one period (the subquery "last year" joins)."""
    return (f"(SELECT pb.id, pb.account_id, pb.amount, pb.number, pb.property_class, pb.erus FROM {BILL} pb "
            f"JOIN {RUN} pr ON pr.id = pb.run_id WHERE pb.period_start = {start_param} AND pb.voided = FALSE "
            f"AND pr.state = '{RunState.ISSUED.value}')")


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
    (bills, new, new_c, same, up, down, last_c, this_c), = _rows(
        f"SELECT COUNT(*), SUM(CASE WHEN p.id IS NULL THEN 1 ELSE 0 END), "
        f"SUM(CASE WHEN p.id IS NULL THEN {_cents('b.amount')} ELSE 0 END), "
        f"SUM(CASE WHEN p.id IS NOT NULL AND {_cents('b.amount')} = {_cents('p.amount')} THEN 1 ELSE 0 END), "
        f"SUM(CASE WHEN p.id IS NOT NULL AND {_cents('b.amount')} > {_cents('p.amount')} THEN 1 ELSE 0 END), "
        f"SUM(CASE WHEN p.id IS NOT NULL AND {_cents('b.amount')} < {_cents('p.amount')} THEN 1 ELSE 0 END), "
        f"SUM(CASE WHEN p.id IS NOT NULL THEN {_cents('p.amount')} ELSE 0 END), "
        f"SUM(CASE WHEN p.id IS NOT NULL THEN {_cents('b.amount')} ELSE 0 END) "
        f"FROM {BILL} b LEFT JOIN {_live_bills_of()} p ON p.account_id = b.account_id WHERE b.run_id = %s",
        [prev, run.pk])
    (dropped, dropped_c), = _rows(
        f"SELECT COUNT(*), {_sum_cents('p.amount')} FROM {_live_bills_of()} p WHERE NOT EXISTS (SELECT 1 FROM "
        f"{BILL} b WHERE b.account_id = p.account_id AND b.period_start = %s AND b.voided = FALSE)",
        [prev, run.period_start])
    (last_n, last_all_c), = _rows(f"SELECT COUNT(*), {_sum_cents('p.amount')} FROM {_live_bills_of()} p", [prev])
    last_label = (BillRun.objects.filter(period_start=prev, state=RunState.ISSUED)
                  .values_list("period_label", flat=True).first() or _year_before(run.period_label, prev))
    return {
        "by_class": by_class,
        "totals": {"bills": totals["bills"], "erus": totals["erus"], "total": _money(totals["cents"]),
                   "flagged": totals["flagged"]},
        "last_year": {
            "period_start": str(prev), "period_label": last_label,
            "bills": last_n, "total": _money(last_all_c),
            "same": int(same or 0), "increased": int(up or 0), "decreased": int(down or 0),
            "changed": int(up or 0) + int(down or 0),
            "matched_last_total": _money(last_c), "matched_this_total": _money(this_c),
            "matched_difference": _money(int(this_c or 0) - int(last_c or 0)),
            "new": int(new or 0), "new_total": _money(new_c),
            "dropped": dropped, "dropped_total": _money(dropped_c),
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
        money = lambda v: None if v is None else Decimal(int(v)) * CENT  # noqa: E731
        if self.kind == "dropped":
            rows = _rows(
                f"SELECT par.parcel_id, par.address, lb.owner_name, NULL, NULL, NULL, NULL, p.number, "
                f"p.property_class, p.erus, {_cents('p.amount')} FROM {_live_bills_of()} p "
                f"JOIN {BILL} lb ON lb.id = p.id JOIN {PARCEL} par ON par.id = lb.parcel_id "
                f"WHERE NOT EXISTS (SELECT 1 FROM {BILL} b WHERE b.account_id = p.account_id AND b.period_start = %s "
                f"AND b.voided = FALSE) ORDER BY {_cents('p.amount')} DESC, p.number LIMIT %s OFFSET %s",
                [self.prev, self.run.period_start, limit, offset])
        else:
            where = ("p.id IS NULL" if self.kind == "new"
                     else f"p.id IS NOT NULL AND {_cents('b.amount')} <> {_cents('p.amount')}")
            rows = _rows(
                f"SELECT par.parcel_id, par.address, b.owner_name, b.number, b.property_class, b.erus, "
                f"{_cents('b.amount')}, p.number, p.property_class, p.erus, {_cents('p.amount')} FROM {BILL} b "
                f"JOIN {PARCEL} par ON par.id = b.parcel_id LEFT JOIN {_live_bills_of()} p "
                f"ON p.account_id = b.account_id WHERE b.run_id = %s AND {where} "
                f"ORDER BY ABS({_cents('b.amount')} - COALESCE({_cents('p.amount')}, 0)) DESC, b.number "
                f"LIMIT %s OFFSET %s", [self.prev, self.run.pk, limit, offset])
        return [Difference(pid, addr, owner, num, pc, erus, money(a), lnum, lpc, lerus, money(la))
                for pid, addr, owner, num, pc, erus, a, lnum, lpc, lerus, la in rows]
