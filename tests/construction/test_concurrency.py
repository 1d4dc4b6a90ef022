"""Two phase releases of one bond at the same moment (PostgreSQL row locks): never more released than held."""
from datetime import date
from decimal import Decimal as D

import pytest
from django.db import connection

from stormwater.construction import services as cs
from stormwater.construction.models import SuretyEntry

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_releases_at_once_never_release_more_than_held(project, personas, at, race):
    if connection.vendor != "postgresql":
        pytest.skip("row locks are a PostgreSQL matter; SQLite serializes writers")
    at(date(2026, 4, 20))
    cs.surety_post(project=project, form="bond", amount=D("125000"), estimated_cost=D("120000"),
                   prevailing_wage_included=True, counsel_approved_on=date(2026, 4, 14),
                   finance_approved_on=date(2026, 4, 14), posted_on=date(2026, 4, 20), acting_user=personas["collector"])

    def release(phase):
        return lambda: cs.surety_release(project=project, amount=D("70000"), phase=phase, on=date(2026, 4, 20),
                                         acting_user=personas["director"])
    results, errors = race(release("Phase 1"), release("Phase 2"))
    assert len(results) == 1 and len(errors) == 1 and "more than the security still held" in str(errors[0])
    assert SuretyEntry.objects.count() == 1 and cs.surety_held(project.surety) == D("55000")
