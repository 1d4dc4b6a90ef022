"""Two Directors demoting each other at the same moment still leave one Director (PostgreSQL row locks)."""
import pytest
from django.db import connection

from stormwater.accounts.models import User
from stormwater.accounts.roles import Role
from stormwater.accounts.services import AccountError, user_set_role

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_directors_demoting_each_other_leave_one(race):
    if connection.vendor != "postgresql":
        pytest.skip("row locks are a PostgreSQL matter; SQLite serializes writers with IMMEDIATE transactions")
    a = User.objects.create_user(username="a", role=Role.DIRECTOR)
    b = User.objects.create_user(username="b", role=Role.DIRECTOR)
    results, errors = race(lambda: user_set_role(user=a, role="staff", acting_user=b),
                           lambda: user_set_role(user=b, role="staff", acting_user=a))
    assert len(results) == 1 and len(errors) == 1 and isinstance(errors[0], AccountError)
    assert User.objects.filter(role=Role.DIRECTOR, is_active=True).count() == 1
