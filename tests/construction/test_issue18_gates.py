"""Issue 18, "Wrong today": acts dated after now, and the permit gates that could be walked around. Each test
failed on the code before its fix (the observed defect is in the test's docstring)."""
from datetime import date
from decimal import Decimal as D

import pytest

from stormwater.cases.services import TransitionError
from stormwater.construction import services as cs
from stormwater.construction.models import Inspection, PunchItem, RainEvent
from stormwater.stewardship import services as ss

from .conftest import dt, pdf_upload, report
from .test_done_when import pdftext
from .test_refusals import active  # noqa: F401 (fixture)

ENG = dict(inspector_name="Dana Engineer", inspector_credentials="MA PE 45678")


def _walked_through(project, eng, at):
    """The walk-through (2026-08-03) with no punch item: the last step before the final inspection."""
    at(date(2026, 8, 1), 9)
    cs.inspection_notice_give(project=project, kind="walk_through", scheduled_at=dt(2026, 8, 3, 10), acting_user=eng)
    at(date(2026, 8, 3), 12)
    cs.inspection_report_file(project=project, report=report("walk_through", dt(2026, 8, 3, 10), **ENG),
                              acting_user=eng)


# --- 1. dates of acts are never later than now -------------------------------------------------------

def test_a_final_report_dated_three_days_out_is_refused(active, personas, at):
    """The design engineer noticed a final inspection three days out and filed its report at once: it was
    accepted (and a certificate issued today would cite it)."""
    eng = personas["consultant"]
    _walked_through(active, eng, at)
    at(date(2026, 9, 1), 9)
    cs.inspection_notice_give(project=active, kind="final", scheduled_at=dt(2026, 9, 4, 10), acting_user=eng)
    with pytest.raises(cs.ConstructionError, match=r"inspection date and time .*2026-09-04 10:00.* later than now"):
        cs.inspection_report_file(project=active, report=report(
            "final", dt(2026, 9, 4, 10), video_recorded_on=date(2026, 8, 30), video_reference="CCTV-1",
            storm_evaluated_on=date(2026, 8, 30), storm_evaluation_rain_in=D("0.5"), last_inspection=date(2026, 8, 1),
            **ENG), acting_user=eng)
    assert not Inspection.objects.filter(kind="final").exists()


def test_an_inspection_time_hours_ahead_is_refused_and_now_is_accepted(active, personas, at):
    at(date(2026, 4, 28), 9)
    with pytest.raises(cs.ConstructionError, match="inspection date and time"):
        cs.inspection_report_file(project=active, report=report("erosion_routine", dt(2026, 4, 28, 12)),
                                  acting_user=personas["inspector"])
    i = cs.inspection_report_file(project=active, report=report("erosion_routine", dt(2026, 4, 28, 9)),
                                  acting_user=personas["inspector"])
    assert i.pk


def test_the_final_report_s_video_and_storm_dates_are_not_in_the_future(active, personas, at):
    eng = personas["consultant"]
    _walked_through(active, eng, at)
    at(date(2026, 9, 1), 9)
    cs.inspection_notice_give(project=active, kind="final", scheduled_at=dt(2026, 9, 2, 10), acting_user=eng)
    at(date(2026, 9, 2), 12)
    base = dict(video_reference="CCTV-1", storm_evaluation_rain_in=D("0.5"), last_inspection=date(2026, 8, 1), **ENG)
    with pytest.raises(cs.ConstructionError, match="video .*2026-09-03.* later than today"):
        cs.inspection_report_file(project=active, report=report(
            "final", dt(2026, 9, 2, 10), video_recorded_on=date(2026, 9, 3), storm_evaluated_on=date(2026, 8, 30),
            **base), acting_user=eng)
    with pytest.raises(cs.ConstructionError, match="storm .*2026-09-05.* later than today"):
        cs.inspection_report_file(project=active, report=report(
            "final", dt(2026, 9, 2, 10), video_recorded_on=date(2026, 9, 1), storm_evaluated_on=date(2026, 9, 5),
            **base), acting_user=eng)


def test_a_punch_item_is_not_done_in_the_future(active, personas, at):
    eng = personas["consultant"]
    at(date(2026, 8, 1), 9)
    cs.inspection_notice_give(project=active, kind="walk_through", scheduled_at=dt(2026, 8, 3, 10), acting_user=eng)
    at(date(2026, 8, 3), 12)
    cs.inspection_report_file(project=active, report=report("walk_through", dt(2026, 8, 3, 10),
                                                            punch_list=("Reseed the swale",), **ENG), acting_user=eng)
    item = PunchItem.objects.get()
    with pytest.raises(cs.ConstructionError, match="done .*2026-08-10.* later than today"):
        cs.punch_item_done(item=item, on=date(2026, 8, 10), note="seeded", acting_user=eng)
    item.refresh_from_db()
    assert item.done_on is None
    cs.punch_item_done(item=item, on=date(2026, 8, 3), note="seeded", acting_user=eng)
    item.refresh_from_db()
    assert item.done_on == date(2026, 8, 3)


def test_rainfall_ending_in_the_future_is_refused(active, personas, at):
    at(date(2026, 7, 5), 12)
    with pytest.raises(cs.ConstructionError, match="ended .* later than now"):
        cs.rain_event_record(project=active, ended_at=dt(2026, 7, 5, 18), rain_in=D("0.30"), source="gauge",
                             acting_user=personas["inspector"])
    assert not RainEvent.objects.exists()


def test_the_report_form_names_the_future_time(active, personas, at, client_for):
    """The desk form (the same service as the field outbox and the API): a message, no report, no 500."""
    at(date(2026, 4, 28), 9)
    c = client_for(personas["inspector"])
    r = c.post(f"/construction/{active.case.number}/report/", {
        "kind": "erosion_routine",
        "inspected_at": "2026-04-28T15:00", "location": "1 Elm St", "inspector_name": "Ivy Inspector",
        "inspector_credentials": "CPESC #1234", "first_inspection": "on", "weather": "Sunny",
        "precipitation_24h_in": "0", "evaluation": "compliant", "signature_method": "typed",
        "signed_name": "Ivy Inspector", "attest": "on"}, follow=True)
    assert r.status_code in (200, 400)
    assert "later than now" in r.content.decode()
    assert not Inspection.objects.filter(kind="erosion_routine").exists()


# --- 2. a permit is closed only when its construction file is complete ------------------------------

def test_closing_the_permit_with_construction_open_is_refused(active, personas, client_for, at):
    """POST /permits/<n>/close/ as Director answered "File closed." while the construction file had no
    certificate of completion (ending oversight and starting the 53G refund clock)."""
    from stormwater.permits import services as ps

    at(date(2026, 6, 1))
    permit = active.permit
    c = client_for(personas["director"])
    r = c.post(f"/permits/{permit.case.number}/close/", {"why": "done"}, follow=True)
    assert "File closed." not in r.content.decode()
    assert "certificate of completion" in r.content.decode()
    permit.case.refresh_from_db()
    assert permit.case.status != "closed"
    with pytest.raises(TransitionError, match=rf"construction file {active.case.number} .*certificate of completion"):
        ps.permit_close(application=permit, acting_user=personas["director"])
    r = c.post(f"/api/permits/{permit.case.number}/close/", "{}", content_type="application/json")
    assert r.status_code == 400 and "certificate of completion" in r.json()["error"]


# --- 3. the applicant's "Record start" goes through the construction-start checks ----------------------

def test_the_applicant_s_record_start_goes_through_the_start_checks(project, personas, client_for, at):
    """The permit page's "Record start" (the applicant's) recorded the § 380-10 K start with no meeting, no plan
    on site, no surety and no pre-start inspection."""
    at(date(2026, 4, 14))
    permit = project.permit
    c = client_for(personas["owner"])
    r = c.post(f"/permits/{permit.case.number}/start/", {"started_on": "2026-04-14"}, follow=True)
    body = r.content.decode()
    assert "Start of construction recorded." not in body
    assert "§ 380-16 B" in body and "§ 380-16 C(4)(b)[1]" in body
    permit.refresh_from_db()
    project.refresh_from_db()
    assert permit.started_on is None and project.started_on is None
    from stormwater.permits import services as ps

    with pytest.raises(TransitionError, match="construction file"):
        ps.project_start_record(application=permit, started_on=date(2026, 4, 14), acting_user=personas["owner"])


def test_the_applicant_s_record_start_passes_once_the_checks_pass(project, personas, client_for, at):
    """Through the same button, once the checks pass, the start is the construction file's: the file is active,
    the § 380-10 K start is on the permit and its two-year clock is met."""
    from stormwater.cases.models import Clock

    from .test_refusals import _post_surety

    at(date(2026, 4, 20))
    _post_surety(project, personas["collector"])
    cs.preconstruction_meeting_record(project=project, held_on=date(2026, 4, 20), attendees="all",
                                      acting_user=personas["director"])
    cs.plan_on_site_confirm(project=project, on=date(2026, 4, 20), acting_user=personas["inspector"])
    at(date(2026, 4, 21), 11)
    cs.inspection_report_file(project=project, report=report("erosion_pre_start", dt(2026, 4, 21, 10)),
                              acting_user=personas["inspector"])
    at(date(2026, 4, 22))
    r = client_for(personas["owner"]).post(f"/permits/{project.permit.case.number}/start/",
                                           {"started_on": "2026-04-22"}, follow=True)
    assert "Start of construction recorded." in r.content.decode()
    project.refresh_from_db()
    project.case.refresh_from_db()
    project.permit.refresh_from_db()
    assert project.case.status == "active" and project.started_on == date(2026, 4, 22)
    assert project.permit.started_on == date(2026, 4, 22)
    assert Clock.objects.get(case=project.permit.case, kind="project_start").met_on == date(2026, 4, 22)


# --- 4. the O&M plan is not recorded before the permit was filed ---------------------------------------

def test_an_om_recording_before_the_permit_was_filed_is_refused(active, personas, at):
    """A registry recording dated a year before the permit was filed (2026-03-02) was accepted."""
    at(date(2026, 9, 1))
    site = active.permit.stewardship_sites.get()
    from stormwater.stewardship.contents import BY_KEY

    plan = ss.om_plan_submit(site=site, items={i: "p" for i in BY_KEY}, final=True, acting_user=personas["owner"])
    with pytest.raises(ss.StewardshipError, match=r"recorded .*2025-03-02.* before the permit was filed .*2026-03-02"):
        ss.om_plan_record(plan=plan, recorded_on=date(2025, 3, 2), book="1", page="2", proof_upload=pdf_upload(),
                          acting_user=personas["director"])
    with pytest.raises(ss.StewardshipError, match="later than today"):
        ss.om_plan_record(plan=plan, recorded_on=date(2026, 9, 2), book="1", page="2", proof_upload=pdf_upload(),
                          acting_user=personas["director"])
    plan.refresh_from_db()
    assert plan.recorded_on is None
    ss.om_plan_record(plan=plan, recorded_on=date(2026, 3, 2), book="1", page="2", proof_upload=pdf_upload(),
                      acting_user=personas["director"])


# --- 5. the certificate says who recorded that no easement was necessary ------------------------------

def test_the_certificate_names_who_recorded_no_easement_necessary(active, personas, at):
    """The certificate said "recorded by the Director" when staff recorded it."""
    from stormwater.construction import documents

    staff = personas["staff"]
    staff.first_name, staff.last_name = "Sam", "Staffer"
    staff.save()
    at(date(2026, 9, 1))
    site = active.permit.stewardship_sites.get()
    ss.easements_not_required(site=site, reason="All BMPs on the owner's lot", acting_user=staff)
    site.refresh_from_db()
    assert site.easements_not_required_by == staff and site.easements_not_required_on == date(2026, 9, 1)
    text = " ".join(pdftext(documents.certificate_pdf(active, on=date(2026, 9, 1))).split())
    assert "recorded by the Director" not in text
    assert "Sam Staffer" in text and "Stormwater staff" in text and "All BMPs on the owner" in text


# --- the documents a reviewer expects ------------------------------------------------------------------

def test_the_permit_lists_sheets_start_by_conditions_and_the_signing_director(approved, personas, at):
    """The permit PDF had no list of approved plan sheets, no start-by date and no named, signed Director."""
    from stormwater.permits import documents as pd
    from stormwater.permits.services import approved_sheets_parse

    d = personas["director"]
    d.first_name, d.last_name = "Drew", "Director"
    d.save()
    kept = approved.case.documents.get(tag="decision")
    text = " ".join(pdftext(kept.file.read()).split())
    assert "Start by April 10, 2028" in text and "Silt fence before clearing" in text
    assert "No plan sheets were listed" in text
    with pytest.raises(ValueError, match="Approved plan sheet 2"):
        approved_sheets_parse(["C-1; Cover sheet; 2; 2026-03-01", "C-2"])
    approved.approved_sheets = approved_sheets_parse(["C-1; Cover sheet; 2; 2026-03-01",
                                                      "C-4; Grading and drainage plan; 3; 2026-04-02"])
    approved.save()
    text = " ".join(pdftext(pd.decision_pdf(approved)).split())
    assert "C-4 Grading and drainage plan 3 2026-04-02" in text and "C-1 Cover sheet 2 2026-03-01" in text
    assert "Drew Director DPW Director" in text


def test_the_abutter_notice_is_on_the_applicant_s_name_and_address(approved, personas):
    """The notice the applicant mails was printed on the Town's letterhead."""
    from stormwater.permits import documents as pd
    from stormwater.permits.models import Abutter

    Abutter.objects.create(application=approved, name="Abe Abutter", mailing_address="3 Elm St\nLongmeadow, MA 01106")
    text = pdftext(pd.abutter_letters_pdf(approved, on=date(2026, 3, 1)))
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    assert "Stormwater Division" not in text and "Department of Public Works ·" not in text
    assert lines[0].startswith("Olivia Owner") and lines[1].startswith("1 Elm St"), lines[:3]
    assert lines[2].startswith("Longmeadow, MA 01106"), lines[:3]
