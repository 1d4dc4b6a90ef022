"""Two people acting on one file at the same moment (PostgreSQL row locks): the 53G account is never
overdrawn and a file never takes two moves from one status."""
from decimal import Decimal as D

import pytest
from django.db import connection
from django.utils import timezone

from stormwater.cases.services import TransitionError
from stormwater.permits import services as sv
from stormwater.permits.models import AccountEntry

from .conftest import complete_package

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def reviewing(draft, personas):
    if connection.vendor != "postgresql":
        pytest.skip("row locks are a PostgreSQL matter; SQLite serializes writers")
    complete_package(draft, personas["staff"])
    sv.permit_file(application=draft, acting_user=personas["owner"])
    return draft


def test_two_completeness_determinations_at_once_make_one_move(reviewing, personas, race):
    cure_by = timezone.localdate() + timezone.timedelta(days=10)
    results, errors = race(
        lambda: sv.permit_determine_complete(application=reviewing, acting_user=personas["staff"]),
        lambda: sv.permit_determine_incomplete(application=reviewing, cure_by=cure_by, note="signatures",
                                               acting_user=personas["director"]))
    assert len(results) == 1 and len(errors) == 1 and isinstance(errors[0], TransitionError)
    assert reviewing.case.events.filter(kind="status").count() == 2  # filed + exactly one determination


def test_two_expenditures_at_once_never_overdraw_the_special_account(reviewing, personas, race):
    sv.permit_determine_complete(application=reviewing, acting_user=personas["staff"])
    today = timezone.localdate()
    sv.consultant_select(application=reviewing, name="Pat", degree="PE", services="review", fee=D("4000"),
                         notice_on=today, acting_user=personas["director"])
    sv.consultant_fee_deposit(application=reviewing, amount=D("4000"), on=today, reference="R",
                              acting_user=personas["collector"])

    def spend():
        return sv.account_expenditure(application=reviewing, amount=D("3000"), on=today, payee="Pat", memo="inv",
                                      acting_user=personas["director"])
    results, errors = race(spend, spend)
    assert len(results) == 1 and len(errors) == 1 and "overdraw" in str(errors[0])
    assert AccountEntry.objects.filter(kind="expenditure").count() == 1
