"""Collector exports: commitment list, aging, water/sewer consolidation (CSV and Excel)."""
from __future__ import annotations


COMMITMENT_MONEY = frozenset({"principal", "interest", "demand_charges", "total"})
# parcel_id and owner are the unit's for an association unit (Ch. 295 Art. IV ¶G; issue 17); "unit" is blank
# for a whole parcel.
COMMITMENT_COLUMNS = ["parcel_id", "account", "owner", "address", "principal", "interest", "demand_charges", "total",
                      "demand_served_on", "unit"]


def commitment_rows(commitment):
    lines = (commitment.lines.select_related("account__parcel__owner", "account__unit__owner", "demand")
             .order_by("account__number"))
    for line in lines.iterator(chunk_size=2000):
        a = line.account
        owner = a.billed_owner
        yield [a.property_id, a.number, owner.name if owner else "", a.parcel.address, str(line.principal),
               str(line.interest), str(line.demand_charges), str(line.total), str(line.demand.served_on),
               a.unit.unit if a.unit_id else ""]


AGING_MONEY = frozenset({"current", "1-30", "31-60", "61-90", "over 90", "total"})
AGING_COLUMNS = ["account", "parcel_id", "address", "current", "1-30", "31-60", "61-90", "over 90", "total",
                 "oldest_due", "owner", "mailing_address"]  # owner and mailing address added at the end (issue 25)


def aging_rows(rows):
    """``rows``: a ``positions.PositionReport`` (streamed) or its rows."""
    for r in rows:
        yield [r.number, r.parcel_id, r.address,
               *[str(r.buckets[k]) for k in ("current", "1-30", "31-60", "61-90", "over 90")], str(r.total),
               str(r.oldest_due or ""), r.owner_name, r.mailing_address]


# The water/sewer billing import (Ch. 295 Art. IV fee ¶B: consolidated with the water/sewer bill).
# Documented in docs/consolidated-billing.md; one row per stormwater installment.
WATER_SEWER_COLUMNS = ["water_account", "parcel_id", "service_address", "owner_name", "stormwater_bill",
                       "installment", "charge_code", "description", "amount", "issue_date", "due_date"]


def water_sewer_rows(run):
    """One row per installment of the run's consolidated bills, read as plain values in chunks."""
    from stormwater.utility.models import Installment

    qs = (Installment.objects.filter(bill__run=run).exclude(bill__water_sewer_account="")
          .order_by("bill__water_sewer_account", "bill__number", "seq")
          .values_list("bill__water_sewer_account", "bill__parcel__parcel_id", "bill__parcel__address",
                       "bill__owner_name", "bill__number", "seq", "bill__period_start", "bill__period_end",
                       "bill__erus", "bill__blocks", "amount", "issue_date", "due_date"))
    for water, pid, address, owner, number, seq, start, end, erus, blocks, amount, issued, due in qs.iterator(
            chunk_size=2000):
        yield [water, pid, address, owner, number, seq, "SW",
               f"Stormwater fee {start:%m/%d/%Y}-{end:%m/%d/%Y} ({erus} ERU)" if blocks
               else f"Stormwater fee {start:%m/%d/%Y}-{end:%m/%d/%Y} (flat)",
               str(amount), issued.isoformat(), due.isoformat()]
