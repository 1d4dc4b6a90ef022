"""The default town configuration: Longmeadow's fee structure with demo values.

DESIGN.md "Interpretations": until the Select Board's current resolution is entered, the demo
values are ERU 3,400 ft² and $4.43 per ERU per month ($53.16 a year), as reported for Longmeadow in
the Western Kentucky University Stormwater Utility Survey 2021; small-residential flat rate = one
ERU's charge; demand charge $25. Interest 12 % per annum (Ch. 295 Art. IV billing ¶C). Block table:
Ch. 295 Art. IV ¶E Table 1. Billed once a year (¶B allows 1–4 installments).
They are labelled "demo values" wherever shown.
"""
from __future__ import annotations

from decimal import Decimal

from .fees import DEFAULT_BLOCKS, FeeTerms

DEMO_LABEL = "Longmeadow demo values (WKU Stormwater Utility Survey 2021)"
DEMO_ERU_SQFT = Decimal("3400")
DEMO_RATE_PER_ERU = Decimal("53.16")  # $4.43 a month × 12
DEMO_SMALL_RESIDENTIAL_RATE = Decimal("53.16")
DEMO_INSTALLMENTS = 1
DEMO_INTEREST_RATE_PERCENT = Decimal("12")
DEMO_DEMAND_CHARGE = Decimal("25.00")


def demo_terms() -> FeeTerms:
    return FeeTerms(eru_sqft=DEMO_ERU_SQFT, rate_per_eru=DEMO_RATE_PER_ERU,
                    small_residential_rate=DEMO_SMALL_RESIDENTIAL_RATE, blocks=DEFAULT_BLOCKS,
                    installments=DEMO_INSTALLMENTS, label=DEMO_LABEL + " (demo values)")
