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


def test_one_report_sent_twice_at_once_is_filed_once(project, personas, at, race):
    """Issue 18: the outbox sends a report again when it did not hear the answer (or two tabs send it): the two
    sends of one client key at the same moment give one report; the other learns it is already filed."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks are a PostgreSQL matter; SQLite serializes writers")
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from stormwater.construction.models import Inspection
    from stormwater.construction.reporting import AlreadyFiled

    from .conftest import report

    at(date(2026, 4, 21), 11)
    key = "5a0c3c52-1b7e-4f0e-a7c9-8e9f0d1c2b3a"

    def send():
        return lambda: cs.inspection_report_file(project=project, report=report(
            "erosion_pre_start", datetime(2026, 4, 21, 10, tzinfo=ZoneInfo("America/New_York")), client_key=key),
            acting_user=personas["inspector"])
    results, errors = race(send(), send())
    assert len(results) == 1 and len(errors) == 1 and isinstance(errors[0], AlreadyFiled)
    assert errors[0].inspection == results[0]
    assert Inspection.objects.filter(client_key=key).count() == 1
