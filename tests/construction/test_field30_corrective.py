"""Issue 30, the field side: a corrective action opened from a report row marked "needs maintenance" (CGP 2022 Part 5
corrective action; no notice of violation): the row's finding and photos carried over, a due date, on the file page and
the week list until it is closed with its completion date and note. The same mechanism as the notice of violation from
a failed row (``enforcement.violation_from_row``): one follow-up per row."""
from datetime import date

import pytest

from stormwater.construction import field
from stormwater.construction import services as cs
from stormwater.construction.enforcement import ERR_ROW_HAS_NOTICE, ERR_ROW_NOT_MAINTENANCE
from stormwater.construction.models import FollowUp

from .test_field_web import day  # noqa: F401  (the fixture: 1 Elm St under way, a storm pending, 2026-07-06 07:00)
from .test_issue30_row_notice import FINDING, _storm_report


def _corrective(day, personas, **kw):  # noqa: F811
    project, storm = day
    insp = _storm_report(project, storm, personas, condition="needs_maintenance", evaluation="compliant", **kw)
    row = insp.rows.get()
    a = cs.corrective_action_from_row(row=row, corrective_actions="Clean out the sediment behind the fence",
                                      correct_by=date(2026, 7, 8), acting_user=personas["inspector"])
    return project, insp, row, a


def test_a_row_needing_maintenance_opens_a_corrective_action_not_a_notice(day, personas):  # noqa: F811
    project, insp, row, a = _corrective(day, personas)
    assert a.kind == FollowUp.CORRECTIVE and a.row == row and a.inspection == insp
    assert a.description == f"{row.label}: {FINDING}" and a.found_on == date(2026, 7, 6)
    assert a.notice_document is None and list(a.row.photos.all())  # the row's photos go with it; no written notice
    assert a.ref == f"CA{a.pk}" and not a.resolved
    # not a violation: no stop-work order, no referral, no certificate gate reads it as one
    assert cs._unresolved(project) == []
    with pytest.raises(cs.ConstructionError) as e:
        cs.corrective_action_from_row(row=row, corrective_actions="x", correct_by=date(2026, 7, 8),
                                      acting_user=personas["inspector"])
    assert str(e.value) == ERR_ROW_HAS_NOTICE.format(label=row.label, what="corrective action", ref=a.ref)


def test_a_failed_row_is_a_notice_of_violation_not_a_corrective_action(day, personas):  # noqa: F811
    project, storm = day
    insp = _storm_report(project, storm, personas)
    with pytest.raises(cs.ConstructionError) as e:
        cs.corrective_action_from_row(row=insp.rows.get(), corrective_actions="x", correct_by=date(2026, 7, 8),
                                      acting_user=personas["inspector"])
    assert str(e.value) == ERR_ROW_NOT_MAINTENANCE.format(label=insp.rows.get().label, condition="failed")


def test_a_due_date_not_before_the_finding_and_the_actions_said(day, personas):  # noqa: F811
    project, storm = day
    insp = _storm_report(project, storm, personas, condition="needs_maintenance", evaluation="compliant")
    with pytest.raises(cs.ConstructionError) as e:
        cs.corrective_action_from_row(row=insp.rows.get(), corrective_actions="x", correct_by=date(2026, 7, 5),
                                      acting_user=personas["inspector"])
    assert e.value.field == "correct_by"
    with pytest.raises(cs.ConstructionError):
        cs.corrective_action_from_row(row=insp.rows.get(), corrective_actions=" ", correct_by=date(2026, 7, 8),
                                      acting_user=personas["inspector"])
    assert not project.violations.exists()


def test_on_the_week_list_until_closed_with_a_date_and_a_note(day, personas, at):  # noqa: F811
    project, insp, row, a = _corrective(day, personas)
    week = [x for x in field.week_visits(user=personas["inspector"]) if x.what == "corrective"]
    assert [(x.project, x.title, x.due_at.date(), x.citation) for x in week] == [
        (project, f"Corrective action CA{a.pk}: {row.label}", date(2026, 7, 8), "CGP 2022 Part 5")]
    at(date(2026, 7, 9), 8)
    assert [x.overdue for x in field.day_visits(user=personas["inspector"]) if x.what == "corrective"] == [True]
    # an inspection of the site does not close it: only its completion does
    with pytest.raises(cs.ConstructionError) as e:
        cs.violation_corrected(violation=a, on=date(2026, 7, 9), note=" ", acting_user=personas["inspector"])
    assert e.value.field == "note"
    cs.violation_corrected(violation=a, on=date(2026, 7, 8), note="Sediment removed, fence re-staked",
                           acting_user=personas["inspector"])
    a.refresh_from_db()
    assert a.resolved and a.approved_on is None  # done when completed: no Director's approval of a notice
    assert not [x for x in field.week_visits(user=personas["inspector"]) if x.what == "corrective"]
    assert project.case.events.filter(kind="corrective.closed").exists()


def test_the_report_page_opens_it_and_the_file_page_closes_it(day, personas, client_for):  # noqa: F811
    project, storm = day
    insp = _storm_report(project, storm, personas, condition="needs_maintenance", evaluation="compliant")
    row = insp.rows.get()
    n = project.case.number
    c = client_for(personas["inspector"])
    page = c.get(f"/construction/{n}/inspections/{insp.pk}/").content.decode()
    url = f"/construction/{n}/inspections/{insp.pk}/rows/{row.pk}/corrective/"
    assert f'action="{url}"' in page and "Open a corrective action" in page
    assert "Open a notice of violation" not in page
    r = c.post(url, {"corrective_actions": "Clean out", "correct_by": ""})
    assert r.status_code == 400 and not project.violations.exists()
    r = c.post(url, {"corrective_actions": "Clean out the sediment", "correct_by": "2026-07-08"})
    assert r.status_code == 302 and r.url == f"/construction/{n}/inspections/{insp.pk}/"
    a = project.violations.get()
    assert a.kind == "corrective" and a.correct_by == date(2026, 7, 8)
    assert f"Corrective action CA{a.pk}" in c.get(r.url).content.decode()
    assert f"Corrective action CA{a.pk}" in c.get("/field/week/").content.decode()
    detail = c.get(f"/construction/{n}/").content.decode()
    assert 'id="corrective"' in detail and f"CA{a.pk}" in detail and "Clean out the sediment" in detail
    assert "No violations." in detail  # the corrective action is not listed as a violation
    close = f"/construction/{n}/violations/{a.pk}/corrected/"
    assert f'action="{close}"' in detail
    r = c.post(close, {"on": "2026-07-06", "note": "Sediment removed"})
    assert r.status_code == 302, r.content.decode()[:2000]
    a.refresh_from_db()
    assert a.resolved and a.corrected_note == "Sediment removed"
    assert f"Corrective action CA{a.pk}: " not in c.get("/field/week/").content.decode()
