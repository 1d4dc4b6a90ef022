"""Two people deciding one abatement at once post it once (PostgreSQL row locks; the money path)."""
from datetime import date
from decimal import Decimal as D

import pytest
from django.db import connection

from stormwater.receivables.services import payment_post
from stormwater.relief import services as sv
from stormwater.relief.models import Abatement
from stormwater.utility.models import EntryKind, LedgerEntry

from .conftest import house_bill


@pytest.mark.django_db(transaction=True)
def test_an_abatement_decided_twice_at_once_is_posted_once(billed, personas, at, race):
    if connection.vendor != "postgresql":
        pytest.skip("row locks are a PostgreSQL matter; SQLite serializes writers")
    bill = house_bill(billed)
    at(date(2026, 9, 20))
    payment_post(account=bill.account, amount=D("53.16"), received_on=date(2026, 9, 20), acting_user=None)
    ab = sv.abatement_apply(bill=bill, grounds=["area"], statement="x", amount_requested=D("26.58"),
                            disposition="refund", acting_user=personas["owner"])

    def director():
        sv.abatement_decide(abatement=Abatement.objects.get(pk=ab.pk), decision="grant", reasons="",
                            acting_user=personas["director"])
        return 1

    done, errors = race(director, director, director, timeout=120)
    # The two late ones see the decision made (issue 17: "already decided … nothing is decided or posted again").
    assert len(done) == 1 and len(errors) == 2 and all("already decided" in str(e) for e in errors), errors
    assert sum(e.amount for e in LedgerEntry.objects.filter(bill=bill, kind=EntryKind.ABATEMENT)) == D("-26.58")
