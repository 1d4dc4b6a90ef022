"""rules.applicability: § 380-4 thresholds and segmentation, § 380-5 exemptions A–H (pure)."""
from datetime import date
from decimal import Decimal as D

import pytest

from stormwater.rules.applicability import (EXEMPTIONS, ONE_ACRE_SQFT, OtherWork, Outcome, determine,
                                            exemption_check, to_sqft)
from stormwater.rules.permit_fees import FeeTerms, account_balance, account_summary, billable_acres, permit_fees

ON = date(2026, 5, 1)


def test_one_acre_exactly_needs_a_permit_and_one_square_foot_less_does_not():
    assert determine(disturbance_sqft=ONE_ACRE_SQFT, on=ON).outcome is Outcome.REQUIRED
    r = determine(disturbance_sqft=ONE_ACRE_SQFT - 1, on=ON)
    assert r.outcome is Outcome.NOT_REQUIRED and r.lid_guidance  # § 380-4 B guidance for small projects


def test_acres_or_square_feet():
    assert to_sqft(acres=D("1.5")) == D("65340") and to_sqft(sqft=D("100")) == D("100")
    with pytest.raises(ValueError):
        to_sqft(acres=D(1), sqft=D(1))


def test_a_small_lot_in_a_larger_common_plan_needs_a_permit():
    r = determine(disturbance_sqft=D(10000), on=ON, common_plan=True, common_plan_total_sqft=D(200000))
    assert r.outcome is Outcome.REQUIRED and "common plan" in r.reasons[0]
    small_plan = determine(disturbance_sqft=D(10000), on=ON, common_plan=True, common_plan_total_sqft=D(20000))
    assert small_plan.outcome is Outcome.NOT_REQUIRED


def test_no_lid_guidance_when_nothing_reaches_the_storm_drains():
    assert determine(disturbance_sqft=D(1000), on=ON, discharges_to_ms4=False).lid_guidance == ()


@pytest.mark.parametrize("letter", list("ABCDEFGH"))
def test_each_exemption_applies_only_when_all_its_conditions_hold(letter):
    ex = EXEMPTIONS[letter]
    good = {c.key: c.must_be for c in ex.conditions}
    r = determine(disturbance_sqft=D(100000), on=ON, exemption=letter, exemption_answers=good)
    assert r.outcome is Outcome.EXEMPT and r.exemption == letter
    assert any("performance standards" in x for x in r.reasons)
    for c in ex.conditions:
        bad = {**good, c.key: not c.must_be}
        r = determine(disturbance_sqft=D(100000), on=ON, exemption=letter, exemption_answers=bad)
        assert r.outcome is Outcome.REQUIRED and c.text in r.exemption_failures


def test_roadway_widening_by_a_full_lane_is_not_exempt():
    answers = {"existing_ways_only": True, "adds_lane_width": True}
    assert exemption_check("H", answers) == [EXEMPTIONS["H"].conditions[1].text]
    assert determine(disturbance_sqft=D(60000), on=ON, exemption="H",
                     exemption_answers=answers).outcome is Outcome.REQUIRED


def test_unknown_exemption_is_refused():
    with pytest.raises(ValueError):
        exemption_check("Z", {})


def test_segmentation_is_flagged_for_the_director_with_the_facts():
    other = [OtherWork("Phase 1 clearing", D(25000), date(2025, 8, 1), same_owner=True, common_plan=None),
             OtherWork("Neighbour's garage, unrelated", D(30000), date(2026, 1, 1)),  # neither same owner nor adjacent
             OtherWork("Old job", D(30000), date(2024, 4, 1), adjacent_parcel=True)]  # more than two years before
    r = determine(disturbance_sqft=D(20000), on=ON, other_work=other)
    assert r.outcome is Outcome.NOT_REQUIRED and r.segmentation is not None
    assert [w.description for w in r.segmentation.works] == ["Phase 1 clearing"]
    assert r.segmentation.combined_sqft == D(45000)
    assert any("under two years" in f and "A(1)" in f and "A(3)" in f for f in r.segmentation.facts)
    assert determine(disturbance_sqft=D(10000), on=ON, other_work=other[:1]).segmentation is None  # < 1 acre together


def test_json_shape():
    j = determine(disturbance_sqft=D(50000), on=ON).as_json()
    assert j["outcome"] == "required" and j["disturbance_acres"] == "1.148"


def test_permit_fees_count_each_started_acre():
    assert billable_acres(D(43561)) == 2 and billable_acres(D(10)) == 1
    lines = permit_fees(D(50000), FeeTerms(D("500"), D("100"), D("250")))
    assert [x.amount for x in lines] == [D("500.00"), D("200.00"), D("500.00")]


def test_special_account_balance():
    entries = [("deposit", D("5000")), ("interest", D("3.21")), ("expenditure", D("4200")), ("refund", D("803.21"))]
    assert account_balance(entries) == D("0.00")
    assert account_summary(entries[:3])["balance"] == D("803.21")
    with pytest.raises(ValueError):
        account_balance([("deposit", D("-1"))])
