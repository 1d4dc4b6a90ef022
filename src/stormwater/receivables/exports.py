"""Collector exports: commitment list, aging, water/sewer consolidation (CSV and Excel)."""
from __future__ import annotations


COMMITMENT_MONEY = frozenset({"principal", "interest", "demand_charges", "total"})
COMMITMENT_COLUMNS = ["parcel_id", "account", "owner", "address", "principal", "interest", "demand_charges", "total",
                      "demand_served_on"]


def commitment_rows(commitment):
    lines = commitment.lines.select_related("account__parcel__owner", "demand").order_by("account__number")
    for line in lines.iterator(chunk_size=2000):
        p = line.account.parcel
        yield [p.parcel_id, line.account.number, p.owner.name if p.owner else "", p.address, str(line.principal),
               str(line.interest), str(line.demand_charges), str(line.total), str(line.demand.served_on)]


AGING_MONEY = frozenset({"current", "1-30", "31-60", "61-90", "over 90", "total"})
AGING_COLUMNS = ["account", "parcel_id", "address", "current", "1-30", "31-60", "61-90", "over 90", "total",
                 "oldest_due"]


def aging_rows(rows):
    """``rows``: a ``positions.PositionReport`` (streamed) or its rows."""
    for r in rows:
        yield [r.number, r.parcel_id, r.address,
               *[str(r.buckets[k]) for k in ("current", "1-30", "31-60", "61-90", "over 90")], str(r.total),
               str(r.oldest_due or "")]


# The water/sewer billing import (Ch. 295 Art. IV fee ¶B: consolidated with the water/sewer bill).
# Documented in docs/consolidated-billing.md; one row per stormwater installment.
WATER_SEWER_COLUMNS = ["water_account", "parcel_id", "service_address", "owner_name", "stormwater_bill",
                       "installment", "charge_code", "description", "amount", "issue_date", "due_date"]


def water_sewer_rows(run):
    from stormwater.utility.models import Installment

    qs = (Installment.objects.filter(bill__run=run).exclude(bill__water_sewer_account="")
          .select_related("bill", "bill__parcel").order_by("bill__water_sewer_account", "bill__number", "seq"))
    for i in qs.iterator(chunk_size=2000):
        b = i.bill
        yield [b.water_sewer_account, b.parcel.parcel_id, b.parcel.address, b.owner_name, b.number, i.seq, "SW",
               f"Stormwater fee {b.period_start:%m/%d/%Y}-{b.period_end:%m/%d/%Y} ({b.erus} ERU)"
               if b.blocks else f"Stormwater fee {b.period_start:%m/%d/%Y}-{b.period_end:%m/%d/%Y} (flat)",
               str(i.amount), i.issue_date.isoformat(), i.due_date.isoformat()]
