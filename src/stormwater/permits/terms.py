"""The terms of a permit file that its reads and its acts share (Ch. 380 § 380-10): the lengths of its clocks, each
with its rule, and the roles a signed-up person may be linked to a permit as (issue 18).

Plain data below the acts and the reads: ``documents`` (the permit's start-by date), ``selectors`` (the people on a
permit) and the acts take them from here, so that no read has to import an act.
"""
from __future__ import annotations

from stormwater.cases.models import PartyRole

# Lengths of the clocks, each with its rule.
ACTION_DAYS = 42              # § 380-10 I(2): final action within 42 days of the date of filing
WITHDRAWAL_DAYS = 5           # § 380-10 G(2)(c): withdrawn within five days of the notice: no consultant cost
PAYMENT_BUSINESS_DAYS = 10    # § 380-10 G(2)(d): consultant fee within 10 business days of the request
APPEAL_DAYS = 10              # § 380-10 G(2)(e): appeal received within 10 days of the fee request
REFUND_DAYS = 30              # § 380-10 G(2)(f): balance returned within 30 days
START_MONTHS = 24             # § 380-10 K: the project shall begin within two years after issuance
HEARING_NOTICE_DAYS = 7       # § 380-7: hearing advertised at least seven days before
MIN_YEARS_PRACTICE = 3        # § 380-10 G(2)(e): a degree or three or more years of practice

# Who may be linked to a permit and see it (``people.permit_party_link``, ``selectors.permit_people``).
LINKABLE_ROLES = {PartyRole.DESIGN_ENGINEER: "design engineer", PartyRole.CONTRACTOR: "contractor",
                  PartyRole.AGENT: "agent of the owner"}
