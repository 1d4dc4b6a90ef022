"""Issue 30, "Wrong today": construction dated before the permit. On a permit approved (issued) 2026-04-10 the
construction file accepted a plan on site, a pre-start inspection and a start dated before it, and the project-start
clock then read "met" on a day the permit did not exist. No act of a construction file may be dated before the
permit's issuance; the refusal names the field. Each test failed on the code before the fix."""
from datetime import date

import pytest

from stormwater.construction import services as cs
from stormwater.construction.models import ConstructionProject, Inspection

from .conftest import dt, report
from .test_refusals import active  # noqa: F401 (fixture)


def test_the_plan_on_site_before_the_permit_is_refused_naming_the_field(project, personas, at):
    at(date(2026, 4, 14))
    with pytest.raises(cs.ConstructionError, match=r"2026-04-01.*before .*issued .*2026-04-10") as e:
        cs.plan_on_site_confirm(project=project, on=date(2026, 4, 1), acting_user=personas["director"])
    assert e.value.field == "on"
    assert ConstructionProject.objects.get(pk=project.pk).plan_on_site_confirmed_on is None
    cs.plan_on_site_confirm(project=project, on=date(2026, 4, 10), acting_user=personas["director"])


def test_a_meeting_and_an_inspection_before_the_permit_are_refused(project, personas, at):
    at(date(2026, 4, 14))
    with pytest.raises(cs.ConstructionError, match="before") as e:
        cs.preconstruction_meeting_record(project=project, held_on=date(2026, 4, 9), attendees="Applicant, GC",
                                          acting_user=personas["director"])
    assert e.value.field == "held_on"
    with pytest.raises(cs.ConstructionError, match="before") as e:
        cs.inspection_report_file(project=project, report=report("erosion_pre_start", dt(2026, 4, 9, 10)),
                                  acting_user=personas["inspector"])
    assert e.value.field == "inspected_at"
    assert not Inspection.objects.filter(project=project).exists()


def test_a_start_before_the_permit_is_refused_and_the_clock_is_not_met(project, personas, at):
    at(date(2026, 4, 14))
    with pytest.raises(cs.ConstructionError, match="start of land disturbance.*before") as e:
        cs.construction_start(project=project, on=date(2026, 4, 2), acting_user=personas["director"])
    assert e.value.field == "on"
    project.permit.refresh_from_db()
    assert project.permit.started_on is None


def test_the_web_form_names_the_date_field(project, personas, client_for, at):
    at(date(2026, 4, 14))
    c = client_for(personas["director"])
    r = c.post(f"/construction/{project.case.number}/plan-on-site/", {"on": "2026-04-01"})
    assert r.status_code == 400
    assert b"before" in r.content
    assert ConstructionProject.objects.get(pk=project.pk).plan_on_site_confirmed_on is None


def test_a_report_dated_tomorrow_without_a_notice_is_refused_for_both_at_once(active, personas, at):
    """The notice refusal came first and the date only after it was fixed: both are said at once."""
    at(date(2026, 8, 1), 9)
    with pytest.raises(cs.ConstructionError) as e:
        cs.inspection_report_file(project=active, report=report(
            "walk_through", dt(2026, 8, 2, 10), inspector_name="Dana Engineer", inspector_credentials="MA PE 45678"),
            acting_user=personas["consultant"])
    assert "notify the DPW Director" in str(e.value) and "later than now" in str(e.value)
    assert e.value.field == "inspected_at"
