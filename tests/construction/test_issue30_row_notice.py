"""Issue 30 "the inspector's phone": from a failed row of a report, a notice of violation with the row's finding and
photo carried over (§ 380-16 C(4)(e)[5]), the re-inspection on the week list, a stop-work order where the rule allows
it; and a part of the site unsafe to inspect recorded in the report (CGP 2022 Part 4.5)."""
import shutil
import subprocess
from datetime import date, timedelta

import pytest
from django.http import QueryDict

from stormwater.construction import field, reportform, selectors
from stormwater.construction import services as cs
from stormwater.construction.enforcement import ERR_REINSPECT_PAST, ERR_ROW_HAS_NOTICE, ERR_ROW_NOT_FAILED
from stormwater.construction.reporting import ERR_UNSAFE, RowInput

from .conftest import dt, report
from .images import jpeg_bytes, upload
from .test_field_web import day  # noqa: F401  (the fixture: 1 Elm St under way, a storm pending, 2026-07-06 07:00)

FINDING = "Fence down over 30 ft at the outlet; sediment in the brook"


def _storm_report(project, storm, personas, *, condition="failed", note=FINDING, **kw):
    fence = project.controls.get(name="Silt fence along the brook")
    base = dict(storm_id=storm.pk, evaluation="violations", corrective_steps="Re-set and re-trench the fence; "
                "remove the sediment from the brook bank",
                rows=(RowInput(control_id=fence.pk, condition=condition, note=note,
                               photos=(upload("fence.jpg", jpeg_bytes()),)),))
    base.update(kw)
    return cs.inspection_report_file(project=project, report=report("erosion_storm", dt(2026, 7, 6, 6, 30),
                                                                     last_inspection=date(2026, 7, 1), **base),
                                     acting_user=personas["inspector"])


def test_a_failed_row_becomes_a_notice_with_its_finding_and_photo(day, personas, tmp_path):  # noqa: F811
    project, storm = day
    insp = _storm_report(project, storm, personas)
    row = insp.rows.get()
    v = cs.violation_from_row(row=row, corrective_actions="Re-set the fence", correct_by=date(2026, 7, 8),
                              acting_user=personas["inspector"])
    assert v.row == row and v.inspection == insp and v.found_on == date(2026, 7, 6)
    assert v.description == f"{row.label}: {FINDING}" and "Silt fence along the brook" in v.description
    assert v.notice_document.tag == "violation_notice"
    pdf = tmp_path / "nov.pdf"
    pdf.write_bytes(v.notice_document.file.read())
    text = " ".join(subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout.split())
    assert FINDING in text and "Photos of the finding" in text and "Taken July 6, 2026 09:58" in text
    if shutil.which("pdfimages"):
        listing = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True, check=True).stdout
        assert [r.split()[3:5] for r in listing.splitlines()[2:] if r.split()[2] == "image"] == [["640", "480"]]
    # one notice per row
    with pytest.raises(cs.ConstructionError) as e:
        cs.violation_from_row(row=row, corrective_actions="x", correct_by=date(2026, 7, 8),
                              acting_user=personas["inspector"])
    assert str(e.value) == ERR_ROW_HAS_NOTICE.format(label=row.label, what="notice of violation", ref=f"V{v.pk}")


def test_a_row_that_did_not_fail_is_no_notice(day, personas):  # noqa: F811
    project, storm = day
    insp = _storm_report(project, storm, personas, condition="needs_maintenance", evaluation="compliant")
    row = insp.rows.get()
    with pytest.raises(cs.ConstructionError) as e:
        cs.violation_from_row(row=row, corrective_actions="x", correct_by=date(2026, 7, 8),
                              acting_user=personas["inspector"])
    assert str(e.value) == ERR_ROW_NOT_FAILED.format(label=row.label, condition="needs maintenance")
    assert not project.violations.exists()


def test_the_reinspection_is_on_the_week_list_until_the_site_is_inspected_that_day(day, personas, at):  # noqa: F811
    project, storm = day
    insp = _storm_report(project, storm, personas)
    with pytest.raises(cs.ConstructionError, match=ERR_REINSPECT_PAST):
        cs.violation_from_row(row=insp.rows.get(), corrective_actions="Re-set the fence", correct_by=date(2026, 7, 8),
                              reinspect_at=dt(2026, 7, 6, 6), acting_user=personas["inspector"])
    assert not project.violations.exists()  # all or nothing
    v = cs.violation_from_row(row=insp.rows.get(), corrective_actions="Re-set the fence", correct_by=date(2026, 7, 8),
                              reinspect_at=dt(2026, 7, 9, 9), acting_user=personas["inspector"])
    week = [x for x in field.week_visits(user=personas["inspector"]) if x.what == "reinspection"]
    assert [(x.project, x.title, x.due_at, x.citation, x.report_kind) for x in week] == [
        (project, f"Re-inspection of V{v.pk}: {insp.rows.get().label}", dt(2026, 7, 9, 9), "§ 380-16 C(4)(e)[5]",
         "random")]
    assert not [x for x in field.day_visits(user=personas["inspector"]) if x.what == "reinspection"]
    at(date(2026, 7, 9), 7)
    assert [x.what for x in field.day_visits(user=personas["inspector"])].count("reinspection") == 1
    at(date(2026, 7, 9), 10)
    fence = project.controls.get()
    cs.inspection_report_file(project=project, report=report(
        "random", dt(2026, 7, 9, 9, 30), evaluation="compliant", last_inspection=date(2026, 7, 6),
        rows=(RowInput(control_id=fence.pk, condition="in_place"),)), acting_user=personas["inspector"])
    assert not [x for x in field.week_visits(user=personas["inspector"]) if x.what == "reinspection"]


def test_a_stop_work_order_on_the_row_where_the_ordinance_allows_it(day, personas):  # noqa: F811
    project, storm = day
    insp = _storm_report(project, storm, personas)
    v = cs.violation_from_row(row=insp.rows.get(), corrective_actions="Re-set the fence", correct_by=date(2026, 7, 8),
                              stop_work_reason="Sediment reaching the brook", acting_user=personas["director"])
    project.case.refresh_from_db()
    order = cs.stop_work_open(project)
    assert project.case.status == "stop_work" and list(order.violations.all()) == [v]


def test_the_report_page_opens_the_notice_as_the_inspector(day, personas, client_for):  # noqa: F811
    project, storm = day
    insp = _storm_report(project, storm, personas)
    row = insp.rows.get()
    n = project.case.number
    c = client_for(personas["inspector"])
    page = c.get(f"/construction/{n}/inspections/{insp.pk}/").content.decode()
    url = f"/construction/{n}/inspections/{insp.pk}/rows/{row.pk}/violation/"
    assert f'action="{url}"' in page and "Open a notice of violation" in page
    assert 'name="stop_work"' not in page  # stop-work orders are the Director's (construction.manage)
    assert c.post(url, {"corrective_actions": "Re-set", "correct_by": "2026-07-08", "stop_work": "1",
                        "stop_work_reason": "x"}).status_code == 403
    r = c.post(url, {"corrective_actions": "Re-set", "correct_by": "06/07/2026"})
    assert r.status_code == 400 and not project.violations.exists()
    r = c.post(url, {"corrective_actions": "Re-set and re-trench", "correct_by": "2026-07-08",
                     "reinspect_at": "2026-07-09T09:00"})
    assert r.status_code == 302 and r.url == f"/construction/{n}/inspections/{insp.pk}/"
    v = project.violations.get()
    assert v.row == row and v.reinspect_at == dt(2026, 7, 9, 9)
    page = c.get(r.url).content.decode()
    assert f"Notice of violation V{v.pk}" in page and "Open a notice of violation" not in page
    week = c.get("/field/week/").content.decode()
    assert f"Re-inspection of V{v.pk}" in week and "?kind=random" in week
    d = client_for(personas["director"]).get(f"/construction/{n}/inspections/{insp.pk}/").content.decode()
    assert "Notice of violation V" in d


def test_a_part_unsafe_to_inspect_is_said_in_the_report_and_the_clock_counts_it(day, personas, client_for):  # noqa: F811
    project, storm = day
    with pytest.raises(cs.ConstructionError) as e:
        _storm_report(project, storm, personas, condition="unsafe", note="", evaluation="compliant",
                      corrective_steps="")
    assert str(e.value) == ERR_UNSAFE and e.value.field == "unsafe_conditions"
    with pytest.raises(cs.ConstructionError) as e:
        _storm_report(project, storm, personas, condition="in_place", note="", evaluation="compliant",
                      unsafe_conditions="Brook over its banks")
    assert str(e.value) == ERR_UNSAFE and e.value.field == "unsafe_locations"
    insp = _storm_report(project, storm, personas, condition="unsafe", note="", evaluation="compliant",
                         corrective_steps="", unsafe_conditions="Brook over its banks, fast water",
                         unsafe_locations="east edge along the brook")
    assert insp.unsafe and insp.rows.get().get_condition_display() == "Unsafe to inspect"
    page = client_for(personas["inspector"]).get(f"/construction/{project.case.number}/inspections/{insp.pk}/")
    assert "Unsafe to inspect (CGP 2022 Part 4.5)" in page.content.decode()
    assert "east edge along the brook" in page.content.decode()
    # CGP 2022 Part 4.5: the report is the storm inspection; no storm inspection is owed any more
    assert not [d for d in selectors.dues(project) if d.kind == "storm"]


def test_the_form_reads_the_unsafe_fields_where_the_controls_are_shown():
    post = QueryDict(mutable=True)
    post.update({"kind": "erosion_routine", "unsafe_conditions": "Trench open", "unsafe_locations": "Lot 4"})
    rep = reportform.report_from_post(post, QueryDict().copy())
    assert (rep.unsafe_conditions, rep.unsafe_locations) == ("Trench open", "Lot 4")
    post["kind"] = "final"
    rep = reportform.report_from_post(post, QueryDict().copy())
    assert (rep.unsafe_conditions, rep.unsafe_locations) == ("", "")
