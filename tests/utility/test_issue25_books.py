"""Issue 25 ("Books the town can stake its name on"): a period is billed once, whoever it is billed to.

Ch. 295 Art. IV ¶B bills each parcel's fee for its period once; ¶G divides a master parcel's fee among its units
once the association's instrument is received. A period already billed through the master parcel (one bill of the
whole fee) is not billed again through its units when an instrument is recorded later and the period's run is
re-run; and a period billed through the units is not billed again to the master as a whole.

The master here is a 20-unit condominium of 61,200 ft² impervious: 18 ERUs, $531.60 + 8 × $47.84 = $914.35 a year
(Table 1 blocks at $53.16 an ERU), the amount of the report.
"""
from __future__ import annotations

import io
from datetime import date
from decimal import Decimal as D

import pytest
from django.core.management import call_command

from stormwater.parcels.models import Owner, Parcel, ParcelImpervious
from stormwater.utility.models import Bill, LedgerEntry
from stormwater.utility.services import bill_run_issue, fiscal_year

MASTER_FEE = D("914.35")
UNITS = ("101", "102", "103")


@pytest.fixture
def master(town, resolution):
    o = Owner.objects.create(name="Maple Court Trustees", mailing_address="5 Maple Ct\nLongmeadow, MA 01106")
    p = Parcel.objects.create(parcel_id="05-01-1", address="5 Maple Ct", owner=o, land_use_code="102",
                              dwelling_units=20, lot_sqft=D("200000"))
    ParcelImpervious.objects.create(survey=town["survey"], parcel=p, impervious_sqft=D("61200"))
    return p


def _run(issue_date):
    label, start, end = fiscal_year(2027)
    return bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=issue_date,
                          acting_user=None)


def _import_units_and_instrument(tmp_path, *, recorded_on: str):
    """Three unit parcels come in from the Assessors' records, then the association's instrument is recorded with
    ``stormwater association import`` (the way the report made it)."""
    for u in UNITS:
        o = Owner.objects.create(name=f"Unit {u} Owner", mailing_address=f"{u} Maple Ct\nLongmeadow, MA 01106")
        Parcel.objects.create(parcel_id=f"05-01-1-{u}", address=f"{u} Maple Ct", owner=o, land_use_code="102",
                              dwelling_units=1)
    f = tmp_path / "maple.csv"
    f.write_text("unit_parcel_id,share_percent\n05-01-1-101,33.3333\n05-01-1-102,33.3333\n05-01-1-103,33.3334\n",
                 encoding="utf-8")
    call_command("association", "import", str(f), "--parcel", "05-01-1", "--reference", "Doc. 2026-0311",
                 "--recorded-on", recorded_on, "--name", "Maple Court Condominium", stdout=io.StringIO())


def _owed_for_fy2027(parcel) -> D:
    """Everything charged for FY2027 on the parcel's accounts (whole parcel and units), by the live bills."""
    return sum((b.amount for b in Bill.objects.filter(parcel=parcel, period_start=date(2026, 7, 1))), D(0))


def test_a_rerun_does_not_bill_the_units_of_a_master_already_billed_for_the_period(master, tmp_path, at):
    at(date(2026, 9, 10))
    first = _run(date(2026, 9, 10))
    whole = Bill.objects.get(parcel=master)
    assert whole.amount == MASTER_FEE and whole.account.unit is None and first.bills >= 1
    at(date(2026, 11, 2))
    _import_units_and_instrument(tmp_path, recorded_on="2026-11-01")
    at(date(2026, 12, 1))
    again = _run(date(2026, 12, 1))
    # The master's FY2027 bill is still owed: the period is billed, through the master. No unit bill.
    assert list(Bill.objects.filter(parcel=master, account__unit__isnull=False)) == []
    assert _owed_for_fy2027(master) == MASTER_FEE
    assert again.bills == 0 and again.run is None
    assert sum(e.amount for e in LedgerEntry.objects.filter(account__parcel=master)) == MASTER_FEE
    # The next period is billed through the units, for their shares of the master's fee.
    label, start, end = fiscal_year(2028)
    at(date(2027, 9, 10))
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2027, 9, 10),
                   acting_user=None)
    fy28 = Bill.objects.filter(parcel=master, period_start=start)
    assert sorted(b.account.unit.unit for b in fy28) == list(UNITS)
    assert sum(b.amount for b in fy28) == MASTER_FEE


def test_a_period_billed_through_the_units_is_not_billed_again_to_the_master(master, tmp_path, at):
    at(date(2026, 11, 2))
    _import_units_and_instrument(tmp_path, recorded_on="2026-11-01")
    at(date(2026, 12, 1))
    _run(date(2026, 12, 1))
    units = Bill.objects.filter(parcel=master)
    assert sorted(b.account.unit.unit for b in units) == list(UNITS) and sum(b.amount for b in units) == MASTER_FEE
    # A run of the same period dated before the instrument took effect reads no instrument: it must not bill the
    # master parcel's whole fee on top of its units' shares.
    again = _run(date(2026, 10, 15))
    assert not Bill.objects.filter(parcel=master, account__unit__isnull=True).exists()
    assert _owed_for_fy2027(master) == MASTER_FEE
    # Nor the unit parcels their own fees: their shares of the period are billed through the master.
    assert not Bill.objects.filter(parcel__parcel_id__startswith="05-01-1-").exists()
    assert again.bills == 0


def test_a_unit_billed_on_its_own_for_the_period_is_not_billed_its_share_as_well(town, resolution, tmp_path, at):
    # In September the master cannot be billed (no impervious area measured yet); unit parcels 101 and 102 are on
    # the Assessors' records already and are billed their own flat fee for FY2027.
    o = Owner.objects.create(name="Maple Court Trustees", mailing_address="5 Maple Ct\nLongmeadow, MA 01106")
    master = Parcel.objects.create(parcel_id="05-01-1", address="5 Maple Ct", owner=o, land_use_code="102",
                                   dwelling_units=20, lot_sqft=D("200000"))
    for u in UNITS:
        o = Owner.objects.create(name=f"Unit {u} Owner", mailing_address=f"{u} Maple Ct\nLongmeadow, MA 01106")
        Parcel.objects.create(parcel_id=f"05-01-1-{u}", address=f"{u} Maple Ct", owner=o, land_use_code="102",
                              dwelling_units=1 if u != "103" else None)  # 103: no units on record, not billed
    at(date(2026, 9, 10))
    first = _run(date(2026, 9, 10))
    own = Bill.objects.filter(parcel__parcel_id__startswith="05-01-1-")
    assert sorted((b.parcel.parcel_id, b.amount) for b in own) == [("05-01-1-101", D("53.16")),
                                                                   ("05-01-1-102", D("53.16"))]
    assert "05-01-1" in {pid for pid, _ in first.problems}
    ParcelImpervious.objects.create(survey=town["survey"], parcel=master, impervious_sqft=D("61200"))
    at(date(2026, 11, 2))
    f = tmp_path / "maple.csv"
    f.write_text("unit_parcel_id,share_percent\n05-01-1-101,33.3333\n05-01-1-102,33.3333\n05-01-1-103,33.3334\n",
                 encoding="utf-8")
    call_command("association", "import", str(f), "--parcel", "05-01-1", "--reference", "Doc. 2026-0311",
                 "--recorded-on", "2026-11-01", "--name", "Maple Court Condominium", stdout=io.StringIO())
    at(date(2026, 12, 1))
    again = _run(date(2026, 12, 1))
    # Units 101 and 102 owe FY2027 already (their own bills); only unit 103 is billed, its share of the master's fee.
    through = Bill.objects.filter(parcel=master)
    assert [(b.account.unit.unit, b.amount) for b in through] == [("103", D("304.79"))]
    assert again.bills == 1
