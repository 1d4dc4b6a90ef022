"""The fee, from Ch. 295 Art. IV ¶E (Table 1) and DESIGN.md's interpretations. Values hand-computed."""
from decimal import Decimal as D

import pytest

from stormwater.rules.classes import PropertyClass as PC
from stormwater.rules.fees import (DEFAULT_BLOCKS, TABLE_1_BLOCKS, Block, FeeTerms, compute_fee, erus_for_area,
                                   validate_blocks)
from stormwater.rules.money import ZERO

TERMS = FeeTerms(eru_sqft=D(3400), rate_per_eru=D("53.16"), small_residential_rate=D("53.16"),
                 blocks=DEFAULT_BLOCKS, installments=1)


def test_table_1_is_the_ordinance_table_exactly():
    assert TABLE_1_BLOCKS == ((1, 10, D("1.0")), (11, 50, D("0.9")), (51, 100, D("0.8")), (101, 500, D("0.7")))


@pytest.mark.parametrize("sqft,erus", [(0, 0), (1, 1), (1699, 1), (1700, 1), (5099, 1), (5100, 2), (8499, 2),
                                        (8500, 3), (200000, 59), (D("3400.00"), 1)])
def test_erus_round_to_nearest_whole_halves_up_with_at_least_one(sqft, erus):
    assert erus_for_area(D(sqft), D(3400)) == erus


def test_negative_area_is_refused():
    with pytest.raises(ValueError, match="impervious_sqft"):
        erus_for_area(D(-1), D(3400))


def test_blocks_are_incremental_like_tax_brackets():
    fee = compute_fee(property_class=PC.NONRESIDENTIAL, impervious_sqft=D(200000), terms=TERMS)
    assert fee.erus == 59
    assert [(b.first_eru, b.last_eru, b.erus, b.coefficient, b.amount) for b in fee.blocks] == [
        (1, 10, 10, D("1.0"), D("531.60")), (11, 50, 40, D("0.9"), D("1913.76")), (51, 59, 9, D("0.8"), D("382.75"))]
    assert fee.annual_fee == D("2828.11")
    assert not fee.over_last_block


def test_exactly_100_erus_fill_three_blocks():
    fee = compute_fee(property_class=PC.NONRESIDENTIAL, impervious_sqft=D(340000), terms=TERMS)
    assert fee.erus == 100 and fee.annual_fee == D("4571.76") and len(fee.blocks) == 3


def test_above_500_erus_stay_at_the_last_coefficient_and_are_flagged():
    fee = compute_fee(property_class=PC.NONRESIDENTIAL, impervious_sqft=D(600 * 3400), terms=TERMS)
    assert fee.erus == 600
    assert fee.blocks[-1].first_eru == 101 and fee.blocks[-1].last_eru == 600 and fee.blocks[-1].erus == 500
    assert fee.annual_fee == D("23177.76")
    assert fee.over_last_block and "flagged for review" in fee.explanation


def test_small_residential_pays_the_flat_rate_whatever_its_area():
    for area in (0, 1000, 50000):
        fee = compute_fee(property_class=PC.SMALL_RESIDENTIAL, impervious_sqft=D(area), terms=TERMS)
        assert fee.annual_fee == D("53.16") and fee.blocks == ()


def test_large_residential_is_billed_as_nonresidential():
    big = compute_fee(property_class=PC.LARGE_RESIDENTIAL, impervious_sqft=D(38500), terms=TERMS)
    non = compute_fee(property_class=PC.NONRESIDENTIAL, impervious_sqft=D(38500), terms=TERMS)
    assert big.annual_fee == non.annual_fee == D("579.44")  # 10 × 53.16 + 1 × 53.16 × 0.9 (47.844 → 47.84)
    assert "Large residential" in big.explanation


def test_exempt_and_no_impervious_area_pay_nothing():
    assert compute_fee(property_class=PC.EXEMPT, impervious_sqft=D(99999), terms=TERMS).annual_fee == ZERO
    fee = compute_fee(property_class=PC.NONRESIDENTIAL, impervious_sqft=D(0), terms=TERMS)
    assert fee.erus == 0 and fee.annual_fee == ZERO and "No impervious area" in fee.explanation


def test_credit_percent_reduces_the_fee_and_is_explained():
    fee = compute_fee(property_class=PC.NONRESIDENTIAL, impervious_sqft=D(200000), terms=TERMS,
                      credit_percent=D(10))
    assert fee.credit_amount == D("282.81") and fee.annual_fee == D("2545.30")
    assert "Credit 10.0%" in fee.explanation


def test_installments_sum_exactly_to_the_annual_fee():
    fee = compute_fee(property_class=PC.NONRESIDENTIAL, impervious_sqft=D(200000), terms=TERMS, installments=4)
    assert fee.installments == (D("707.03"), D("707.03"), D("707.03"), D("707.02"))
    for n in (1, 2, 3, 4):
        for area in (3400, 12345, 777777):
            f = compute_fee(property_class=PC.NONRESIDENTIAL, impervious_sqft=D(area), terms=TERMS, installments=n)
            assert sum(f.installments) == f.annual_fee and len(f.installments) == n


@pytest.mark.parametrize("n", [0, 5, 12])
def test_more_than_quarterly_or_less_than_annual_billing_is_refused(n):
    with pytest.raises(ValueError, match="installments"):
        compute_fee(property_class=PC.NONRESIDENTIAL, impervious_sqft=D(1), terms=TERMS, installments=n)


def test_explanation_names_area_eru_size_erus_blocks_and_result():
    e = compute_fee(property_class=PC.NONRESIDENTIAL, impervious_sqft=D(200000), terms=TERMS).explanation
    for part in ("200,000 ft²", "3,400 ft²", "59 ERUs", "ERUs 11–50", "× 0.9", "$2,828.11", "Table 1"):
        assert part in e


def test_absurd_area_is_an_error_not_a_fee():
    with pytest.raises(ValueError, match="plausible"):
        compute_fee(property_class=PC.NONRESIDENTIAL, impervious_sqft=D("1e9"), terms=TERMS)


@pytest.mark.parametrize("blocks,msg", [
    ((), "at least one"), ((Block(2, 10, D(1)),), "start at ERU 1"),
    ((Block(1, 10, D(1)), Block(12, None, D("0.9"))), "start at ERU 11"),
    ((Block(1, None, D(1)), Block(11, 20, D("0.9"))), "open-ended"), ((Block(1, 10, D("1.5")),), "coefficient"),
])
def test_a_malformed_block_table_is_refused(blocks, msg):
    with pytest.raises(ValueError, match=msg):
        validate_blocks(blocks)
