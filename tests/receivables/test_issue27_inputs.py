"""Issue 27: the commitment form took its posted demand ids raw ("abc" was a ValueError, a 23-digit id an
OverflowError on SQLite, each a 500). Now refused on the page, status 400, nothing committed."""
from __future__ import annotations

import pytest

from stormwater.receivables.models import Commitment


@pytest.mark.parametrize("value", ["abc", "99999999999999999999999"])
def test_a_commitment_refuses_an_odd_demand_id(client_for, personas, billed, value):
    r = client_for(personas["collector"]).post("/collections/commitments/", {
        "demand": [value], "tax_fiscal_year": "2028", "committed_on": "2026-11-20"})
    assert r.status_code == 400 and "is not one of the records offered" in r.content.decode()
    assert not Commitment.objects.exists()
