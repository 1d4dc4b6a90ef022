"""A returned check reverses the payment (as before) and adds the town's returned-check charge when set."""
from datetime import date
from decimal import Decimal as D

import pytest
from django.urls import reverse

from stormwater.cashier.returns import returned_check_record
from stormwater.receivables.ledger import account_position
from stormwater.receivables.services import CollectionError, payment_post
from stormwater.receivables.selectors import demand_candidates
from stormwater.utility.models import Account, EntryKind


def acct(parcel):
    return Account.objects.get(parcel=parcel, unit=None)


def test_without_a_configured_charge_it_is_a_plain_reversal(billed, personas):
    a = acct(billed["shops"])
    p = payment_post(account=a, amount=D("1414.06"), received_on=date(2026, 10, 1), acting_user=None)
    returned_check_record(payment=p, reason="NSF", reversed_on=date(2026, 11, 1), acting_user=personas["collector"])
    assert not a.entries.filter(kind=EntryKind.DEMAND).exists()
    assert account_position(a, as_of=date(2026, 11, 1)).dues[0].principal == D("1414.06")


def test_the_configured_charge_is_added_paid_first_and_does_not_block_a_demand(billed, personas, town_toml):
    town_toml(returned_check_charge="25.00")
    a = acct(billed["shops"])
    p = payment_post(account=a, amount=D("1414.06"), received_on=date(2026, 10, 1), acting_user=None)
    before = account_position(a, as_of=date(2026, 11, 1)).total
    returned_check_record(payment=p, reason="NSF", reversed_on=date(2026, 11, 1), acting_user=personas["collector"])
    pos = account_position(a, as_of=date(2026, 11, 1))
    d1 = pos.dues[0]
    assert d1.principal == D("1414.06") and d1.interest_posted == D("25.00") and d1.demand == D("0.00")
    assert pos.total == before + D("1414.06") + D("25.00") + d1.interest_accrued
    # still a demand candidate (no demand served), and a payment pays the charge before the fee
    assert a.pk in [acc.pk for acc, _ in demand_candidates(as_of=date(2026, 11, 2))]
    p2 = payment_post(account=a, amount=D("25.00"), received_on=date(2026, 11, 2), acting_user=None)
    assert {e.component for e in p2.entries.all()} == {"interest"}
    with pytest.raises(CollectionError, match="already reversed"):
        returned_check_record(payment=p, reason="again", acting_user=None)


def test_cash_is_not_a_returned_check(billed, personas):
    p = payment_post(account=acct(billed["house"]), amount=D("5.00"), received_on=date(2026, 10, 1),
                     method="cash", acting_user=None)
    with pytest.raises(CollectionError, match="not a check"):
        returned_check_record(payment=p, reason="x", acting_user=None)


def test_the_statement_page_reverses_a_returned_check_with_the_charge(billed, personas, client_for, town_toml):
    town_toml(returned_check_charge="30.00")
    a = acct(billed["house"])
    p = payment_post(account=a, amount=D("26.58"), received_on=date(2026, 10, 1), reference="101", acting_user=None)
    c = client_for(personas["collector"])
    assert "returned unpaid by the bank" in c.get(reverse("account_statement", args=[a.number])).content.decode()
    c.post(reverse("payment_reverse", args=[p.pk]), {"reason": "NSF", "reversed_on": "2026-11-02",
                                                      "returned_check": "on"})
    assert a.entries.filter(kind=EntryKind.DEMAND, amount=D("30.00")).count() == 1
