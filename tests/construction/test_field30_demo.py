"""Issue 30: the demo inspector's Today / This week pages are not "Nothing is due" — the demo's notice of violation
has its re-inspection scheduled (today + 3 days at 9:00 local), on the week list (the demo's construction file as
``demo.demo_load`` makes it, through ``demo_field._construction``)."""
from datetime import datetime, time, timedelta

from django.utils import timezone

from stormwater.construction import field


def test_the_demo_notice_has_its_reinspection_on_the_inspectors_week(town, personas, client_for):
    from stormwater.demo_field import _construction

    out = _construction(personas)
    assert out.get("construction")
    at = timezone.make_aware(datetime.combine(timezone.localdate() + timedelta(days=3), time(9, 0)))
    week = [v for v in field.week_visits(user=personas["inspector"]) if v.what == "reinspection"]
    assert [(v.project.case.number, v.due_at) for v in week] == [(out["construction"], at)]
    page = client_for(personas["inspector"]).get("/field/week/").content.decode()
    assert "Nothing is due" not in page and "Re-inspection of V" in page


def test_the_demo_corrective_action_is_on_the_inspectors_today(town, personas, client_for):
    """The demo's storm report has a row needing maintenance: its corrective action (CGP 2022 Part 5) is due today."""
    from stormwater.demo_field import _construction

    _construction(personas)
    today = [v for v in field.day_visits(user=personas["inspector"]) if v.what == "corrective"]
    assert [v.due_at.date() for v in today] == [timezone.localdate()]
    page = client_for(personas["inspector"]).get("/field/today/").content.decode()
    assert "Nothing is due today" not in page and "Corrective action CA" in page
