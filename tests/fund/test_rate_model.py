"""The rate model (Ch. 295 Art. IV budget/rates ¶A, ¶C, ¶E): hand-computed values and the balance check.

The hand base: 100 small-residential parcels; nonresidential parcels of 5, 20 and 60 ERUs; two large
residential parcels of 11 ERUs. Block-weighted ERUs under Table 1 (1.0 / 0.9 / 0.8 / 0.7):
   5 → 5;  20 → 10 + 10×0.9 = 19;  60 → 10 + 40×0.9 + 10×0.8 = 54;  11 → 10 + 0.9 = 10.9 (×2 = 21.8)
   flat ratio 1.0: 100 small residential weigh 100.   Σ = 100 + 5 + 19 + 54 + 21.8 = 199.8
"""
from decimal import Decimal as D

import pytest

from stormwater.rules.classes import PropertyClass as PC
from stormwater.rules.fees import DEFAULT_BLOCKS, FeeTerms, blocks_from_table, compute_fee
from stormwater.rules.rate_model import (ERR_NO_BASE, BaseGroup, ParcelBase, block_erus, revenue_at, sample_bills,
                                         solve_rate, weighted_erus)

ZERO = D(0)


def hand_base(**kw):
    rows = ([(PC.SMALL_RESIDENTIAL, 1, ZERO)] * 100
            + [(PC.NONRESIDENTIAL, 5, ZERO), (PC.NONRESIDENTIAL, 20, ZERO), (PC.NONRESIDENTIAL, 60, ZERO),
               (PC.LARGE_RESIDENTIAL, 11, ZERO), (PC.LARGE_RESIDENTIAL, 11, ZERO)])
    return ParcelBase.from_parcels(rows, **kw)


@pytest.mark.parametrize("erus,per_block,weighted", [
    (1, [1, 0, 0, 0], D("1")), (10, [10, 0, 0, 0], D("10")), (11, [10, 1, 0, 0], D("10.9")),
    (20, [10, 10, 0, 0], D("19")), (60, [10, 40, 10, 0], D("54")), (200, [10, 40, 50, 100], D("156")),  # 10 + 36 + 40 + 70
    # 600 ERUs: the 100 above the last block stay at 0.7 (flagged): 10 + 36 + 40 + 500×0.7 = 436
    (600, [10, 40, 50, 500], D("436")),
])
def test_block_weighted_erus_by_hand(erus, per_block, weighted):
    assert block_erus(erus, DEFAULT_BLOCKS) == per_block
    assert weighted_erus(erus, DEFAULT_BLOCKS) == weighted


def test_the_base_groups_parcels_and_counts_what_is_left_out():
    base = hand_base(exempt=3, no_fee=2, not_billable=1)
    assert base.count(PC.SMALL_RESIDENTIAL) == 100
    assert base.count(PC.LARGE_RESIDENTIAL) == 2 and base.erus(PC.LARGE_RESIDENTIAL) == 22
    assert base.count(PC.NONRESIDENTIAL) == 3 and base.erus(PC.NONRESIDENTIAL) == 85
    assert (base.exempt, base.no_fee, base.not_billable) == (3, 2, 1)
    assert BaseGroup(PC.LARGE_RESIDENTIAL, 11, 2) in base.groups


def test_exempt_parcels_cannot_be_put_in_the_base():
    with pytest.raises(ValueError, match="not in the base"):
        BaseGroup(PC.EXEMPT, 0, 1)


def test_it_solves_the_hand_example_to_the_cent():
    # N = 12,000 − 1,000 − 1,000 = 10,000; r* = 10,000 / 199.8 = 50.050050…
    sol = solve_rate(budget=D("12000"), other_revenue=D("1000"), reserve_use=D("1000"), base=hand_base(),
                     blocks=DEFAULT_BLOCKS)
    assert sol.need == D("10000.00")
    assert sol.weighted_base == D("199.8")
    assert sol.linear_rate == D("50.050050")
    # At $50.05 the bills are: 100 × 50.05 = 5,005.00; 5 ERUs 250.25; 20 ERUs 500.50 + 450.45 = 950.95;
    # 60 ERUs 500.50 + 1,801.80 + 400.40 = 2,702.70; 11 ERUs 500.50 + round(45.045) = 545.55, twice 1,091.10.
    # Σ = 10,000.00: the cents rounded up on the 0.9 × 50.05 block make 50.05 enough, one cent below r*'s ceiling.
    assert sol.rate_per_eru == D("50.05") and sol.flat_rate == D("50.05")
    by = {c.property_class: c for c in sol.revenue.by_class}
    assert by[PC.SMALL_RESIDENTIAL].gross == D("5005.00")
    assert by[PC.LARGE_RESIDENTIAL].gross == D("1091.10") and by[PC.LARGE_RESIDENTIAL].weighted_erus == D("21.8")
    assert by[PC.NONRESIDENTIAL].gross == D("3903.90") and by[PC.NONRESIDENTIAL].erus == 85
    assert sol.revenue.expected == D("10000.00") and sol.surplus == D("0.00")
    # By block: 45 ERUs in 1–10, 52 in 11–50, 10 in 51–100, none above.
    assert [(b.erus, b.gross) for b in sol.revenue.by_block] == [
        (45, D("2252.25")), (52, D("2342.35")), (10, D("400.40")), (0, D("0.00"))]
    # One cent less: 199.8 × 50.04 = 9,997.992 plus the rounded cents = 9,998.00 — short.
    assert sol.expected_one_cent_less == D("9998.00")


def test_the_collection_rate_scales_the_need_by_hand():
    # Need 8,000 at 80 % collection = 10,000 billed: the same $50.05.
    # Expected per class: 5,005 × 0.8 = 4,004.00; 1,091.10 × 0.8 = 872.88; 3,903.90 × 0.8 = 3,123.12 → 8,000.00.
    sol = solve_rate(budget=D("10000"), other_revenue=D("2000"), base=hand_base(), blocks=DEFAULT_BLOCKS,
                     collection_rate_percent=D("80"))
    assert sol.rate_per_eru == D("50.05")
    assert [c.expected for c in sol.revenue.by_class] == [D("4004.00"), D("872.88"), D("3123.12")]
    assert sol.revenue.expected == D("8000.00")


def test_a_flat_ratio_and_a_credit_allowance_by_hand():
    # Only 10 small residential (flat = 0.5 × r) and one 20-ERU parcel (19 weighted). Credits 5 %.
    base = ParcelBase.from_parcels([(PC.SMALL_RESIDENTIAL, 1, ZERO)] * 10 + [(PC.NONRESIDENTIAL, 20, ZERO)])
    # r* = 2,400 / (0.95 × (10 × 0.5 + 19)) = 2,400 / 22.8 = 105.263157…
    sol = solve_rate(budget=D("2400"), base=base, blocks=DEFAULT_BLOCKS, flat_ratio=D("0.5"),
                     credit_allowance_percent=D("5"))
    assert sol.weighted_base == D("22.80")
    # At 105.27: flat 52.64 (52.635 rounds up) × 10 = 526.40, credit 26.32 → 500.08;
    # 20 ERUs: 1,052.70 + 947.43 = 2,000.13, credit 100.01 → 1,900.12. Σ 2,400.20 ≥ 2,400.
    # At 105.26: flat 52.63 × 10 = 526.30 − 26.32 = 499.98; 1,052.60 + 947.34 = 1,999.94 − 100.00 = 1,899.94.
    # Σ 2,399.92 < 2,400.
    assert sol.rate_per_eru == D("105.27") and sol.flat_rate == D("52.64")
    assert sol.revenue.expected == D("2400.20")
    assert sol.expected_one_cent_less == D("2399.92")


def test_listed_credits_reduce_each_bill_as_compute_fee_does():
    base = ParcelBase.from_parcels([(PC.NONRESIDENTIAL, 20, D("25"))])
    rev = revenue_at(rate_per_eru=D("53.16"), base=base, blocks=DEFAULT_BLOCKS)
    terms = FeeTerms(eru_sqft=D("3400"), rate_per_eru=D("53.16"), small_residential_rate=D("53.16"),
                     blocks=DEFAULT_BLOCKS)
    fee = compute_fee(property_class=PC.NONRESIDENTIAL, impervious_sqft=D("68000"), terms=terms,
                      credit_percent=D("25"))
    assert rev.billed == fee.annual_fee and rev.credits == fee.credit_amount


@pytest.mark.parametrize("budget,collection,credits,ratio", [
    (D("1234567.89"), D("97"), D("2.5"), D("1")), (D("350000"), D("100"), D("0"), D("0.75")),
    (D("99.99"), D("91.3"), D("10"), D("1.25")), (D("5000000"), D("98.5"), D("0"), D("1")),
])
def test_balance_the_solved_rate_covers_the_need_and_one_cent_less_does_not(budget, collection, credits, ratio):
    base = ParcelBase.from_parcels(
        [(PC.SMALL_RESIDENTIAL, 1, ZERO)] * 4700 + [(PC.NONRESIDENTIAL, e, ZERO) for e in range(1, 700, 3)]
        + [(PC.LARGE_RESIDENTIAL, e, ZERO) for e in (4, 11, 12, 30, 51)] + [(PC.NONRESIDENTIAL, 40, D("50"))])
    sol = solve_rate(budget=budget, base=base, blocks=DEFAULT_BLOCKS, collection_rate_percent=collection,
                     credit_allowance_percent=credits, flat_ratio=ratio, other_revenue=D("50"))
    assert sol.revenue.expected >= sol.need
    below = revenue_at(rate_per_eru=sol.rate_per_eru - D("0.01"), base=base, blocks=DEFAULT_BLOCKS,
                       collection_rate_percent=collection, credit_allowance_percent=credits, flat_ratio=ratio)
    assert below.expected < sol.need == budget - 50
    assert sol.expected_one_cent_less == below.expected
    # Within a cent of the linear estimate r* (rounding moves it at most that far on a base this size).
    assert abs(sol.rate_per_eru - sol.linear_rate) < D("0.02")


def test_other_revenue_covering_the_budget_needs_no_fee():
    sol = solve_rate(budget=D("1000"), other_revenue=D("800"), reserve_use=D("300"), base=hand_base(),
                     blocks=DEFAULT_BLOCKS)
    assert sol.need == 0 and sol.rate_per_eru == D("0.00") and sol.expected_one_cent_less is None


def test_an_empty_base_cannot_raise_a_budget():
    with pytest.raises(ValueError, match="no billable parcels"):
        solve_rate(budget=D("1000"), base=ParcelBase(groups=()), blocks=DEFAULT_BLOCKS)
    assert "{need}" in ERR_NO_BASE


@pytest.mark.parametrize("kw,msg", [
    ({"collection_rate_percent": D("0")}, "collection_rate_percent"),
    ({"collection_rate_percent": D("100.1")}, "collection_rate_percent"),
    ({"credit_allowance_percent": D("100")}, "credit_allowance_percent"),
    ({"flat_ratio": D("-1")}, "flat_ratio"), ({"other_revenue": D("-1")}, "other_revenue"),
    ({"blocks": blocks_from_table([(2, 10, D("1"))])}, "block 1 must start at ERU 1"),
])
def test_bad_inputs_are_refused_naming_the_field(kw, msg):
    args = {"budget": D("1000"), "base": hand_base(), "blocks": DEFAULT_BLOCKS} | kw
    with pytest.raises(ValueError, match=msg):
        solve_rate(**args)


def test_sample_bills_under_the_proposed_and_the_current_rate():
    blocks = DEFAULT_BLOCKS
    current = FeeTerms(eru_sqft=D("3400"), rate_per_eru=D("53.16"), small_residential_rate=D("53.16"), blocks=blocks)
    proposed = FeeTerms(eru_sqft=D("3400"), rate_per_eru=D("60.00"), small_residential_rate=D("60.00"), blocks=blocks)
    rows = sample_bills(proposed=proposed, current=current)
    got = [(r.erus, r.proposed.annual_fee, r.current.annual_fee, r.change) for r in rows]
    assert got == [
        (1, D("60.00"), D("53.16"), D("6.84")),
        (5, D("300.00"), D("265.80"), D("34.20")),
        (20, D("1140.00"), D("1010.04"), D("129.96")),    # 600 + 540;  531.60 + 478.44
        (60, D("3240.00"), D("2870.64"), D("369.36")),    # 600 + 2,160 + 480;  531.60 + 1,913.76 + 425.28
        # 200 ERUs: 600 + 2,160 + 2,400 + 4,200;  531.60 + 1,913.76 + 2,126.40 + 3,721.20
        (200, D("9360.00"), D("8292.96"), D("1067.04")),
    ]
    assert rows[0].label.startswith("Small residential") and rows[4].label == "Nonresidential, 200 ERUs"
    assert sample_bills(proposed=proposed)[1].current is None
