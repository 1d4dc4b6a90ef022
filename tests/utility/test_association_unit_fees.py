"""Ch. 295 Art. IV ¶G: a condominium unit with a parcel id of its own, named in the instrument in force, is billed its
share of the master parcel's fee and never its own fee (issue 17, the last gap). Every reader of a parcel's fee agrees
with the bill run: the public parcel page, relief's fixed credits, the fund's rate base, billing problems and the GIS
fee-change reports. The town's condominium (04-01-1, large residential, 3 ERUs × $53.16 = $159.48) gets an
instrument naming two unit parcels at 60 % / 40 %: $95.69 + $63.79 = $159.48, the master's fee once."""
from datetime import date
from decimal import Decimal as D

import pytest

from stormwater.parcels.models import AssociationUnit, Owner, Parcel
from stormwater.parcels.services import association_record
from stormwater.utility.selectors import billing_problems, parcel_fee

TODAY = date(2026, 12, 10)
MASTER_FEE, SHARE_A, SHARE_B = D("159.48"), D("95.69"), D("63.79")


@pytest.fixture
def units(town, resolution, personas, at):
    """Two unit parcels of their own (small residential: a flat $53.16 each if billed alone) named by an instrument
    in force since 2026-11-20 at 60 % and 40 %."""
    at(TODAY)
    out = {}
    for sfx in ("A", "B"):
        o = Owner.objects.create(name=f"Unit {sfx} Owner", mailing_address=f"{sfx} Condo Way\nLongmeadow, MA 01106")
        out[sfx] = Parcel.objects.create(parcel_id=f"04-01-1-{sfx}", address=f"{sfx} Condo Way", owner=o,
                                         land_use_code="102", dwelling_units=1)
    association_record(parcel=town["condo"], reference="Doc. 2026-0142", recorded_on=date(2026, 11, 20),
                       effective_on=date(2026, 11, 20), acting_user=personas["staff"],
                       shares=[{"row": 2, "unit_parcel_id": "04-01-1-A", "share_percent": "60"},
                               {"row": 3, "unit_parcel_id": "04-01-1-B", "share_percent": "40"}])
    return out


def test_a_unit_parcels_fee_is_its_share_of_the_masters(town, units):
    master = parcel_fee(town["condo"], as_of=TODAY)
    a, b = parcel_fee(units["A"], as_of=TODAY), parcel_fee(units["B"], as_of=TODAY)
    assert master.fee.annual_fee == MASTER_FEE and master.share is None
    assert (a.fee.annual_fee, b.fee.annual_fee) == (SHARE_A, SHARE_B)
    assert a.fee.annual_fee + b.fee.annual_fee == master.fee.annual_fee
    assert sum(a.fee.installments) == SHARE_A
    assert (a.share.percent, a.share.master_parcel_id, a.share.association, a.share.instrument_reference) == \
        (D("60"), "04-01-1", "Test Condominium", "Doc. 2026-0142")
    assert "unit A is 60.0% of $159.48 = $95.69 (Ch. 295 Art. IV ¶G)" in a.fee.explanation
    assert a.share.as_json()["amount"] == "95.69"


def test_the_public_parcel_page_of_a_unit_shows_its_share(client, town, units):
    html = client.get(f"/portal/parcels/{units['A'].parcel_id}/").content.decode()
    assert "$95.69 a year" in html
    assert "Test Condominium" in html and "Doc. 2026-0142" in html and "60.0%" in html
    assert "04-01-1" in html
    assert "$53.16 a year" not in html  # the unit's own flat fee, which is never billed
    master = client.get("/portal/parcels/04-01-1/").content.decode()
    assert "$159.48 a year" in master


def test_the_staff_api_gives_a_units_share(client_for, personas, town, units):
    body = client_for(personas["staff"]).get("/api/parcels/04-01-1-B/").json()
    assert body["fee"]["annual_fee"] == "63.79"
    assert body["association_share"]["percent"] == "40.0" and body["association_share"]["master_parcel_id"] == "04-01-1"


def test_a_fixed_credit_on_a_unit_is_a_percent_of_the_units_share(town, units):
    from stormwater.relief.models import AmountKind, CreditType
    from stormwater.relief.services import credit_full_percent

    fixed = CreditType(code="X", name="Fixed", amount_kind=AmountKind.FIXED, amount=D("19.14"), max_percent=D("100"))
    pct, basis = credit_full_percent(fixed, units["A"], on=TODAY)
    # $19.14 of the unit's $95.69 share (no credit on the master: gross = annual) = 20.002 %, not 36 % of $53.16.
    assert pct == D("20.002")
    assert "$95.69" in basis


def test_the_rate_base_is_unchanged_by_unit_parcels(town, resolution, personas, at):
    from stormwater.fund.selectors import parcel_base

    at(TODAY)
    terms = resolution.fee_terms()
    before = parcel_base(as_of=TODAY, terms=terms)
    _make_units(town, personas)
    after = parcel_base(as_of=TODAY, terms=terms)
    assert after.groups == before.groups  # the condominium's 3 ERUs once; no flat fee for either unit parcel
    assert after.no_fee == before.no_fee + 2  # counted as the bill run counts them: no fee of their own


def _make_units(town, personas):
    for sfx in ("A", "B"):
        o = Owner.objects.create(name=f"Unit {sfx} Owner", mailing_address=f"{sfx} Condo Way")
        Parcel.objects.create(parcel_id=f"04-01-1-{sfx}", address=f"{sfx} Condo Way", owner=o,
                              land_use_code="102", dwelling_units=1)
    association_record(parcel=town["condo"], reference="Doc. 2026-0142", recorded_on=date(2026, 11, 20),
                       effective_on=date(2026, 11, 20), acting_user=personas["staff"],
                       shares=[{"row": 2, "unit_parcel_id": "04-01-1-A", "share_percent": "60"},
                               {"row": 3, "unit_parcel_id": "04-01-1-B", "share_percent": "40"}])


def test_billing_problems_skip_unit_parcels_and_name_a_master_whose_unit_has_no_owner(town, units):
    # A unit parcel's own data problem does not stop any bill: the run never bills it on its own.
    Parcel.objects.filter(pk=units["B"].pk).update(owner=None)
    listed = {p.parcel_id: p.problem for p in billing_problems(as_of=TODAY)}
    assert "04-01-1-B" not in listed and "04-01-1" not in listed
    # The run refuses the master whose unit has no record owner: billing problems must say so.
    AssociationUnit.objects.filter(association__parcel=town["condo"], unit="A").update(owner=None)
    listed = {p.parcel_id: p.problem for p in billing_problems(as_of=TODAY)}
    assert listed["04-01-1"] == "An association unit has no record owner: A"
    assert parcel_fee(town["condo"], as_of=TODAY).problem == "An association unit has no record owner: A"
    assert "no record owner" in parcel_fee(units["A"], as_of=TODAY).problem


def test_the_survey_comparison_counts_the_master_once(town, resolution, personas, at):
    from stormwater.gis.selectors import survey_comparison

    at(TODAY)
    before = survey_comparison(new_areas={}, as_of=TODAY)
    _make_units(town, personas)
    unit_a = Parcel.objects.get(parcel_id="04-01-1-A")
    after = survey_comparison(new_areas={unit_a.pk: D("1800")}, as_of=TODAY)
    assert after["town_total_before"] == before["town_total_before"]
    assert after["town_total_after"] == before["town_total_before"]
    assert D(after["annual_fee_change"]) == 0
    row = next(r for r in after["rows"] if r["parcel_id"] == "04-01-1-A")
    assert D(row["fee_change"]) == 0 and "04-01-1" in row["billed_through"]


def test_the_survey_change_report_prices_a_unit_through_its_master(town, resolution, personas, at):
    from stormwater.gis.selectors import survey_changes
    from stormwater.parcels.models import ImperviousSurvey, ParcelImpervious

    at(TODAY)
    _make_units(town, personas)
    unit_a = Parcel.objects.get(parcel_id="04-01-1-A")
    Parcel.objects.filter(pk=unit_a.pk).update(land_use_code="340", dwelling_units=None, lot_sqft=D("20000"))
    s2 = ImperviousSurvey.objects.create(name="Survey 2027", surveyed_on=date(2026, 10, 1))
    ParcelImpervious.objects.create(survey=town["survey"], parcel=unit_a, impervious_sqft=D("1500"))  # 1 ERU
    ParcelImpervious.objects.create(survey=s2, parcel=unit_a, impervious_sqft=D("9000"))  # 3 ERUs of its own
    ParcelImpervious.objects.create(survey=s2, parcel=town["condo"], impervious_sqft=D("13700"))  # 4 ERUs
    rep = survey_changes(survey_from=town["survey"], survey_to=s2, as_of=TODAY)
    rows = {r.parcel_id: r for r in rep.rows}
    assert (rows["04-01-1"].fee_from, rows["04-01-1"].fee_to) == (MASTER_FEE, D("212.64"))
    # The unit's ground change is shown (its ERUs), but it owes no fee of its own: billed through the master.
    unit = rows["04-01-1-A"]
    assert (unit.erus_from, unit.erus_to) == (1, 3)
    assert (unit.fee_from, unit.fee_to, unit.fee_delta) == (None, None, 0)
    assert "04-01-1" in unit.billed_through and "60.0%" in unit.billed_through
    assert unit.as_json()["billed_through"] == unit.billed_through


def test_every_reader_agrees_with_the_bill_run(town, units):
    from stormwater.utility.models import Bill
    from stormwater.utility.services import bill_run_issue, fiscal_year

    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=TODAY, acting_user=None)
    billed = {b.account.unit.unit: b.amount for b in
              Bill.objects.filter(parcel=town["condo"]).select_related("account__unit")}
    assert billed == {"A": SHARE_A, "B": SHARE_B}
    assert {k: parcel_fee(units[k], as_of=TODAY).fee.annual_fee for k in "AB"} == billed


def test_the_public_page_of_a_unit_parcel_offers_to_pay_the_units_account(client, town, units, town_toml):
    from stormwater.utility.models import Bill
    from stormwater.utility.services import bill_run_issue, fiscal_year

    town_toml(payment_url_template="https://pay.example.com/p?acct={account}&amt={amount}")
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=TODAY, acting_user=None)
    acct = Bill.objects.get(parcel=town["condo"], account__unit__parcel=units["A"]).account
    html = client.get(f"/portal/parcels/{units['A'].parcel_id}/").content.decode()
    assert f"acct={acct.number}" in html
    assert html.count("pay.example.com") == 1  # the unit's own account, not the other unit's


def test_a_unit_parcel_is_not_back_billed_its_own_fee(town, units, personas):
    from stormwater.receivables.services import CollectionError, back_bill_issue

    with pytest.raises(CollectionError, match=r"billed through parcel 04-01-1 .*¶G"):
        back_bill_issue(parcel=units["A"], period_start=date(2026, 7, 1), period_end=date(2026, 11, 30),
                        issue_date=TODAY, acting_user=personas["collector"])
