"""``stormwater permit_clocks``: running clocks with due dates, overdue only on request."""
import json
from datetime import date
from io import StringIO

from django.core.management import call_command

from stormwater.permits import services as sv

from .conftest import complete_package


def test_permit_clocks_lists_due_dates_and_overdue(draft, personas, at):
    at(date(2026, 3, 2))
    complete_package(draft, personas["staff"])
    sv.permit_file(application=draft, acting_user=personas["owner"])
    out = StringIO()
    call_command("permit_clocks", "--as-of", "2026-03-10", stdout=out)
    assert "Final action on the application" in out.getvalue() and "2026-04-13" in out.getvalue()
    out = StringIO()
    call_command("permit_clocks", "--as-of", "2026-03-10", "--overdue", "--json", stdout=out)
    assert json.loads(out.getvalue())["clocks"] == []
    out = StringIO()
    call_command("permit_clocks", "--as-of", "2026-04-14", "--overdue", "--json", stdout=out)
    [row] = json.loads(out.getvalue())["clocks"]
    assert row["case"] == draft.case.number and row["standing"] == "overdue" and row["days_left"] == -1
