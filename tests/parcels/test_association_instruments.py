"""Property associations' instruments (Ch. 295 Art. IV ¶G; issue 17): each recording a new dated instrument with
its unit shares, the earlier ones kept; the 100 % check naming row and field; the bill run uses the one in force."""
from datetime import date
from decimal import Decimal as D

import pytest

from stormwater.audit.models import AuditEvent
from stormwater.parcels.models import AssociationInstrument, AssociationUnit, InstrumentShare, Owner, Parcel
from stormwater.parcels.selectors import instrument_in_force, shares_in_force
from stormwater.parcels.services import AssociationRefused, association_record
from stormwater.utility.models import Account, Bill
from stormwater.utility.services import bill_run_issue, fiscal_year


def issue(fy: int, issue_date: date):
    label, start, end = fiscal_year(fy)
    return bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=issue_date,
                          acting_user=None)


def unit_parcels(town, *suffixes):
    """The condominium's units as parcels of their own (Assessors' ids 04-01-1-<unit>), each with its owner."""
    out = []
    for sfx in suffixes:
        o = Owner.objects.create(name=f"Unit {sfx} Owner", mailing_address=f"{sfx} Condo Way\nLongmeadow, MA 01106")
        out.append(Parcel.objects.create(parcel_id=f"04-01-1-{sfx}", address=f"{sfx} Condo Way", owner=o,
                                         land_use_code="102", dwelling_units=1))
    return out


def rows(*pairs):
    return [{"row": i, "unit_parcel_id": pid, "share_percent": pct} for i, (pid, pct) in enumerate(pairs, 2)]


def test_a_new_instrument_is_recorded_after_a_bill_run_and_the_earlier_one_is_kept(town, resolution, personas):
    # Wrong before: re-recording deleted the unit rows, which billed units' accounts protect (ProtectedError).
    issue(2027, date(2026, 9, 10))
    unit_parcels(town, "A", "B", "C")
    inst, created = association_record(
        parcel=town["condo"], reference="Book 24001 Page 12", recorded_on=date(2026, 11, 20),
        effective_on=date(2027, 7, 1), acting_user=personas["staff"],
        shares=rows(("04-01-1-A", "50"), ("04-01-1-B", "25"), ("04-01-1-C", "25.0000")))
    assert created
    assoc = town["condo"].association
    assert [i.reference for i in assoc.instruments.order_by("effective_on")] == ["Book 1 Page 2", "Book 24001 Page 12"]
    assert instrument_in_force(assoc, on=date(2027, 6, 30)).reference == "Book 1 Page 2"
    assert instrument_in_force(assoc, on=date(2027, 7, 1)) == inst
    # The units on file by label are the same units now (their accounts stay), tied to their parcels and owners.
    assert AssociationUnit.objects.filter(association=assoc).count() == 3
    a = AssociationUnit.objects.get(association=assoc, unit="A")
    assert a.parcel.parcel_id == "04-01-1-A" and a.owner.name == "Unit A Owner"
    assert [(s.unit.unit, s.percent) for s in inst.shares.all()] == [("A", D("50")), ("B", D("25")), ("C", D("25"))]
    ev = AuditEvent.objects.get(action="association.instrument")
    assert ev.actor == personas["staff"] and "Book 24001 Page 12" in ev.why
    assert ev.data["shares"][0] == {"unit_parcel_id": "04-01-1-A", "share_percent": "50"}


def test_the_bill_run_divides_the_fee_by_the_instrument_in_force_on_its_issue_date(town, resolution, personas):
    issue(2027, date(2026, 9, 10))
    fy27 = {b.account.unit.unit: b.amount
            for b in Bill.objects.filter(parcel=town["condo"]).select_related("account__unit")}
    assert fy27 == {"A": D("53.16"), "B": D("53.16"), "C": D("53.16")}
    unit_parcels(town, "A", "B", "101")
    association_record(parcel=town["condo"], reference="Doc. 2026-0099", recorded_on=date(2026, 11, 20),
                       effective_on=date(2027, 7, 1), acting_user=personas["staff"],
                       shares=rows(("04-01-1-A", "50"), ("04-01-1-B", "30"), ("04-01-1-101", "20")))
    issue(2028, date(2027, 9, 10))
    fy28 = Bill.objects.filter(parcel=town["condo"], period_start=date(2027, 7, 1)).select_related("account__unit")
    got = {b.account.unit.unit: (b.share_percent, b.amount, b.owner_name) for b in fy28}
    assert got == {"A": (D("50"), D("79.74"), "Unit A Owner"), "B": (D("30"), D("47.84"), "Unit B Owner"),
                   "101": (D("20"), D("31.90"), "Unit 101 Owner")}
    assert sum(v[1] for v in got.values()) == D("159.48")  # 3 ERUs × $53.16, to the cent
    # Unit A keeps its account across instruments; unit C (not in the new instrument) is not billed for FY2028.
    assert Account.objects.filter(unit__association__parcel=town["condo"]).count() == 4
    b = fy28.get(account__unit__unit="101")
    assert "instrument Doc. 2026-0099" in b.explanation and "unit 101 is 20" in b.explanation
    assert b.account.property_id == "04-01-1-101" and b.account.number == "SW-04-01-1-U101"
    # A unit's own parcel is billed through the master parcel only, never on its own as well.
    assert not Bill.objects.filter(parcel__parcel_id__startswith="04-01-1-").exists()


def test_shares_in_force_read_in_two_queries_whatever_the_associations(town, django_assert_num_queries):
    with django_assert_num_queries(2):
        got = shares_in_force(on=date(2026, 9, 10))
    assert [s.percent for s in got[town["condo"].pk]] == [D("33.3333"), D("33.3333"), D("33.3334")]


def refusal(town, personas, shares, **kw):
    args = {"parcel": town["condo"], "reference": "Book 9 Page 9", "recorded_on": date(2026, 11, 2),
            "acting_user": personas["staff"], "shares": shares} | kw
    before = (AssociationInstrument.objects.count(), InstrumentShare.objects.count(), AssociationUnit.objects.count())
    with pytest.raises(AssociationRefused) as e:
        association_record(**args)
    assert (AssociationInstrument.objects.count(), InstrumentShare.objects.count(),
            AssociationUnit.objects.count()) == before
    return e.value


def test_the_shares_must_total_exactly_100_percent(town, personas):
    unit_parcels(town, "A", "B")
    e = refusal(town, personas, rows(("04-01-1-A", "50"), ("04-01-1-B", "49.9999")))
    assert e.problems == [{"row": None, "field": "share_percent", "message":
                           "the shares total 99.9999 %, not exactly 100 % (the instrument divides the whole)"}]
    e = refusal(town, personas, rows(("04-01-1-A", "50.00001"), ("04-01-1-B", "49.99999")))
    assert {(p["row"], p["field"]) for p in e.problems} == {(2, "share_percent"), (3, "share_percent")}
    assert "more than 4 decimal places" in str(e)
    e = refusal(town, personas, [])
    assert e.problems[0]["field"] == "shares"


@pytest.mark.parametrize("raw, says", [("abc", "not a percentage"), ("NaN", "not a percentage"),
                                       ("Infinity", "not a percentage"), ("0", "more than 0"), ("-5", "more than 0"),
                                       ("100.5", "at most 100"), ("", "not a percentage")])
def test_a_share_that_is_not_a_percentage_is_refused_by_row_and_field(town, personas, raw, says):
    unit_parcels(town, "A", "B")
    e = refusal(town, personas, rows(("04-01-1-A", "50"), ("04-01-1-B", raw)))
    assert e.problems[0]["row"] == 3 and e.problems[0]["field"] == "share_percent" and says in e.problems[0]["message"]


def test_every_unit_is_a_distinct_parcel_other_than_the_master(town, personas):
    unit_parcels(town, "A", "B")
    e = refusal(town, personas, rows(("04-01-1-A", "50"), ("04-01-1-A", "50")))
    assert e.problems == [{"row": 3, "field": "unit_parcel_id",
                           "message": "04-01-1-A is already on row 2: every unit is a distinct parcel"}]
    e = refusal(town, personas, rows(("04-01-1", "50"), ("04-01-1-B", "50")))
    assert e.problems[0] == {"row": 2, "field": "unit_parcel_id",
                             "message": "04-01-1 is the association's master parcel, not a unit"}
    e = refusal(town, personas, rows(("99-99-9", "50"), ("", "50")))
    assert [(p["row"], p["field"]) for p in e.problems] == [(2, "unit_parcel_id"), (3, "unit_parcel_id")]
    assert "not a parcel in the Assessors' records" in str(e)


def test_a_unit_of_another_association_or_another_master_is_refused(town, personas):
    a, b = unit_parcels(town, "A", "B")
    association_record(parcel=town["condo"], reference="Book 5 Page 5", recorded_on=date(2026, 11, 2),
                       acting_user=personas["staff"], shares=rows(("04-01-1-A", "60"), ("04-01-1-B", "40")))
    other = town["apartments"]
    e = refusal(town, personas, rows(("04-01-1-A", "100")), parcel=other, name="Other Condominium")
    assert e.problems == [{"row": 2, "field": "unit_parcel_id",
                           "message": "04-01-1-A is a unit of Test Condominium (parcel 04-01-1)"}]
    e = refusal(town, personas, rows(("04-01-1", "100")), parcel=other, name="Other Condominium")
    assert "master parcel of Test Condominium" in e.problems[0]["message"]
    e = refusal(town, personas, rows(("02-01-2", "100")), parcel=a, name="Nested")
    assert e.problems[0]["field"] == "parcel" and "a unit of Test Condominium" in e.problems[0]["message"]


def test_the_instrument_needs_its_reference_and_a_recording_date_not_in_the_future(town, personas):
    unit_parcels(town, "A")
    e = refusal(town, personas, rows(("04-01-1-A", "100")), reference=" ", recorded_on=date(2099, 1, 1))
    assert [p["field"] for p in e.problems] == ["reference", "recorded_on"]
    assert "after today" in e.problems[1]["message"]
    e = refusal(town, personas, rows(("02-01-1", "100")), parcel=town["house"])  # first instrument: a name
    assert [p["field"] for p in e.problems] == ["name"]


def test_instruments_and_shares_are_append_only(town):
    inst = AssociationInstrument.objects.first()
    with pytest.raises(ValueError):
        inst.delete()
    inst.reference = "changed"
    with pytest.raises(ValueError):
        inst.save()


def test_a_unit_sold_is_billed_to_its_new_owner_after_the_assessor_import(town, resolution, personas):
    from stormwater.gis.assessor import AssessorRecord
    from stormwater.gis.services import assessor_records_import

    unit_parcels(town, "A", "B")
    association_record(parcel=town["condo"], reference="Book 5 Page 5", recorded_on=date(2026, 11, 2),
                       acting_user=personas["staff"], shares=rows(("04-01-1-A", "60"), ("04-01-1-B", "40")))
    assessor_records_import(records=[AssessorRecord("04-01-1-A", "A Condo Way", "New Buyer", "9 Main St", "102", 1,
                                                    None)], problems=[], source="assessor.csv", acting_user=None)
    a = AssociationUnit.objects.get(parcel__parcel_id="04-01-1-A")
    assert a.owner.name == "New Buyer"
    assert AuditEvent.objects.filter(action="association_unit.owner").count() == 1
    issue(2028, date(2027, 9, 10))
    assert Bill.objects.get(account__unit=a).owner_name == "New Buyer"
