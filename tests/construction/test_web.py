"""Construction and stewardship pages and API: who reaches what (404 for others' files), the report form's
refusal naming the field, PDFs served, the MS4 table and CSV."""
from datetime import date
from decimal import Decimal as D

import pytest

from stormwater.construction import services as cs
from stormwater.construction.models import Inspection

from .conftest import dt, report


@pytest.fixture
def started(project, personas, at):
    at(date(2026, 4, 20))
    cs.surety_post(project=project, form="bond", amount=D("125000"), estimated_cost=D("120000"),
                   prevailing_wage_included=True, counsel_approved_on=date(2026, 4, 14),
                   finance_approved_on=date(2026, 4, 14), posted_on=date(2026, 4, 14), acting_user=personas["collector"])
    cs.preconstruction_meeting_record(project=project, held_on=date(2026, 4, 20), attendees="all",
                                      acting_user=personas["director"])
    cs.plan_on_site_confirm(project=project, on=date(2026, 4, 20), acting_user=personas["inspector"])
    at(date(2026, 4, 21), 11)
    cs.inspection_report_file(project=project, report=report("erosion_pre_start", dt(2026, 4, 21, 10)),
                              acting_user=personas["inspector"])
    at(date(2026, 4, 22))
    return project


@pytest.mark.parametrize("role,status", [("director", 200), ("staff", 200), ("inspector", 200), ("collector", 200),
                                         ("consultant", 200), ("owner", 200), ("outsider", 404), ("assessor", 404)])
def test_who_sees_the_construction_file(client_for, personas, started, role, status):
    n = started.case.number
    assert client_for(personas[role]).get(f"/construction/{n}/").status_code == status
    assert client_for(personas[role]).get(f"/api/construction/{n}/").status_code == status


def test_the_list_shows_only_ones_own(client_for, personas, started):
    assert started.case.number in client_for(personas["owner"]).get("/construction/").content.decode()
    assert started.case.number not in client_for(personas["outsider"]).get("/construction/").content.decode()


@pytest.mark.parametrize("role,url,status", [
    ("owner", "start/", 403), ("consultant", "start/", 403), ("inspector", "start/", 403),
    ("owner", "surety/", 403), ("staff", "surety/", 403), ("inspector", "certificate/", 403),
    ("owner", "stop-work/", 403), ("assessor", "rain/", 403), ("consultant", "rain/", 403),
])
def test_role_matrix_for_actions(client_for, personas, started, role, url, status):
    r = client_for(personas[role]).post(f"/construction/{started.case.number}/{url}", {"on": "2026-04-22"})
    assert r.status_code == status


def test_start_from_the_web_then_the_next_due_is_shown(client_for, personas, started):
    c = client_for(personas["director"])
    r = c.post(f"/construction/{started.case.number}/start/", {"on": "2026-04-22"}, follow=True)
    assert "Construction started." in r.content.decode()
    page = c.get(f"/construction/{started.case.number}/").content.decode()
    # the fixture chose CGP 4.2(b): 14 days from the pre-start inspection of Apr 21
    assert "Construction under way" in page and "Tue, May 5, 2026" in page and "CGP 2022 Part 4.2(b)" in page


def test_report_form_refuses_a_missing_field_by_name(client_for, personas, started):
    c = client_for(personas["inspector"])
    n = Inspection.objects.count()
    r = c.post(f"/construction/{started.case.number}/report/", {
        "kind": "erosion_routine", "inspected_at": "2026-04-22T09:00", "location": "whole site",
        "inspector_name": "Ivy Inspector", "inspector_credentials": "CPESC #1234", "last_inspection": "2026-04-21",
        "weather": "", "precipitation_24h_in": "0", "evaluation": "compliant"})
    assert r.status_code == 400 and "[e] weather at time of inspection" in r.content.decode()
    assert Inspection.objects.count() == n
    fixed = {"kind": "erosion_routine", "inspected_at": "2026-04-22T09:00", "location": "whole site",
             "inspector_name": "Ivy Inspector", "inspector_credentials": "CPESC #1234", "last_inspection": "2026-04-21",
             "weather": "Sunny", "precipitation_24h_in": "0", "evaluation": "compliant"}
    r = c.post(f"/construction/{started.case.number}/report/", fixed)  # issue 18: the form asks for a signature
    assert r.status_code == 400 and "Sign the report on the screen, or type your name" in r.content.decode()
    r = c.post(f"/construction/{started.case.number}/report/", {
        **fixed, "signature_method": "typed", "signed_name": "Ivy Inspector", "attest": "1"})
    assert r.status_code == 302 and Inspection.objects.count() == n + 1
    doc = Inspection.objects.latest("id").document
    pdf = client_for(personas["owner"]).get(f"/construction/{started.case.number}/documents/{doc.pk}/")
    assert pdf.status_code == 200 and b"".join(pdf.streaming_content).startswith(b"%PDF-")
    assert client_for(personas["outsider"]).get(
        f"/construction/{started.case.number}/documents/{doc.pk}/").status_code == 404


def test_an_owner_may_not_file_a_report_on_the_project(client_for, personas, started):
    r = client_for(personas["owner"]).post(f"/construction/{started.case.number}/report/", {
        "kind": "walk_through", "inspected_at": "2026-04-22T09:00", "location": "x", "inspector_name": "x",
        "inspector_credentials": "x", "first_inspection": "1", "weather": "x", "precipitation_24h_in": "0",
        "evaluation": "compliant"})
    assert "Only the project" in r.content.decode()


def test_api_detail_lists_what_the_certificate_still_needs(client_for, personas, started):
    j = client_for(personas["staff"]).get(f"/api/construction/{started.case.number}/").json()
    assert j["next_inspection"]["due_at"].startswith("2026-05-05") and j["surety"]["held"] == "125000.00"
    assert any("final O&M plan" in m for m in j["certificate_missing"])


def test_stewardship_pages_and_ms4_report(client_for, personas, started):
    site = started.permit.stewardship_sites.get()
    n = site.case.number
    assert client_for(personas["owner"]).get(f"/stewardship/{n}/").status_code == 200
    assert client_for(personas["outsider"]).get(f"/stewardship/{n}/").status_code == 404
    assert client_for(personas["outsider"]).get(f"/api/stewardship/{n}/").status_code == 404
    assert client_for(personas["owner"]).get("/stewardship/ms4-report/").status_code == 403
    c = client_for(personas["staff"])
    r = c.get("/stewardship/ms4-report/?year=2026")
    assert r.status_code == 200 and "Permits issued" in r.content.decode()
    csv = c.get("/stewardship/ms4-report.csv?year=2026")
    assert csv["Content-Type"].startswith("text/csv") and b'"Permits issued (approved, with or without conditions)",1,'  \
        in csv.content
    assert c.get("/api/stewardship/ms4-report?year=2026").json()["permit_year"] == "2025-2026"
    assert c.get("/stewardship/certifications/overdue/").status_code == 200
    # the owner submits an O&M plan from the web: refused naming the missing items
    r = client_for(personas["owner"]).post(f"/stewardship/{n}/plan/", {"final": "1", "item_owners": "p. 1"},
                                           follow=True)
    assert "§ 380-14 C(2)(o)" in r.content.decode()
