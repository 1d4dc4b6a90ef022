"""Issue 18 on the web: the inspector's day (today, the week, route order), the report form by type with its
prefill, the outbox endpoint (filed once, conflicts, refusals, sign-in), the report page with its photos, the
service worker and the manifest."""
import json
import re
from datetime import date, datetime
from decimal import Decimal as D

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from stormwater.construction import services as cs
from stormwater.construction.models import Inspection

from .conftest import EASTERN, dt, report
from .images import jpeg_bytes, png_bytes, upload

KEY = "7d1e4c8a-0f3b-4a51-9a0e-2f6a1c9b8d77"


def _open_project(approved_app, personas, *, address, lat=None, lon=None):
    p = cs.project_open(permit=approved_app, acting_user=personas["director"], esc_inspector=personas["inspector"],
                        esc_inspector_name="Ivy Inspector", esc_inspector_credentials="CPESC #1234",
                        frequency="14day_storm", preconstruction_required=False, surety_required=False,
                        surety_not_required_reason="test")
    if lat is not None:
        cs.project_position_set(project=p, latitude=lat, longitude=lon, acting_user=personas["inspector"])
    return p


@pytest.fixture
def day(project, personas, at):
    """July: the fixture's project (1 Elm St) started 07-01 after its inspection before the start and a 0.30 in storm ending 07-05
    18:00; today is Mon 07-06 07:00. A control on the site, a position."""
    at(date(2026, 6, 30), 11)
    cs.surety_post(project=project, form="bond", amount=D("125000"), estimated_cost=D("120000"),
                   prevailing_wage_included=True, counsel_approved_on=date(2026, 6, 29),
                   finance_approved_on=date(2026, 6, 29), posted_on=date(2026, 6, 30), acting_user=personas["collector"])
    cs.preconstruction_meeting_record(project=project, held_on=date(2026, 6, 30), attendees="all",
                                      acting_user=personas["director"])
    cs.plan_on_site_confirm(project=project, on=date(2026, 6, 30), acting_user=personas["inspector"])
    at(date(2026, 7, 1), 11)
    cs.inspection_report_file(project=project, report=report("erosion_pre_start", dt(2026, 7, 1, 10)),
                              acting_user=personas["inspector"])
    cs.construction_start(project=project, on=date(2026, 7, 1), acting_user=personas["director"])
    cs.site_control_add(project=project, kind="perimeter", name="Silt fence along the brook",
                        acting_user=personas["inspector"])
    cs.project_position_set(project=project, latitude=42.0505, longitude=-72.5826, acting_user=personas["inspector"])
    at(date(2026, 7, 5), 19)
    storm = cs.rain_event_record(project=project, ended_at=dt(2026, 7, 5, 18), rain_in=D("0.30"), source="DPW gauge",
                                 acting_user=personas["staff"])
    area = cs.area_add(project=project, name="Lot 3 slope", acting_user=personas["inspector"])
    cs.area_ceased(area=area, on=date(2026, 7, 3), acting_user=personas["inspector"])  # stabilize by 07-10
    at(date(2026, 7, 6), 7)
    project.refresh_from_db()
    project.case.refresh_from_db()
    return project, storm


def test_today_lists_the_storm_and_the_week_the_routine_and_stabilization(day, client_for, personas, at):
    project, storm = day
    c = client_for(personas["inspector"])
    r = c.get("/field/today/")
    html = r.content.decode()
    assert r.status_code == 200 and r["Permissions-Policy"].startswith("geolocation=(self)")
    assert "Storm inspection" in html and "Mon, Jul 6, 2026, 6:00 PM" in html and "ending Jul 5, 2026, 6:00 PM" in html
    assert f"/field/{project.case.number}/report/?kind=erosion_storm&amp;storm={storm.pk}" in html
    assert "Routine inspection" not in html          # due 07-15: this week's list, not today's
    points = json.loads(html.split('id="day-points" type="application/json">')[1].split("</script>")[0])
    assert points == [{"lat": 42.0505, "lon": -72.5826, "order": 1, "name": "1 Elm St", "cat": "due today",
                       "href": f"#stop-{project.case.number}"}]
    week = c.get("/field/week/").content.decode()
    assert "Routine inspection" not in week  # due 07-15: beyond the next 7 days (07-06 – 07-12)
    assert "Stabilization check: Lot 3 slope" in week and "stabilized by Jul 10, 2026" in week
    at(date(2026, 7, 9), 8)
    week = client_for(personas["inspector"]).get("/field/week/").content.decode()  # signed in again (idle timeout)
    assert "Routine inspection" in week and "Wed, Jul 15, 2026, 11:59 PM" in week and "Storm inspection" in week
    assert "overdue" in week  # the storm inspection (due 07-06 18:00) was never filed


def test_the_route_starts_at_the_yard_or_where_the_inspector_is(day, client_for, personas, approved, town_toml, at):
    project, _ = day
    c = client_for(personas["inspector"])
    r = c.get("/field/today/?from=42.06,-72.55")
    assert "Route from <strong>your position</strong>" in r.content.decode()
    assert "is not a" not in r.content.decode()
    r = c.get("/field/today/?from=north")
    assert "The starting position must be" in r.content.decode()
    town_toml(field_start_name="DPW yard", field_start_latitude=42.07, field_start_longitude=-72.54)
    r = c.get("/field/today/")
    html = r.content.decode()
    assert "Route from <strong>DPW yard</strong>" in html and "mi from the start" in html


def test_who_sees_the_day(day, client_for, personas):
    project, _ = day
    assert client_for(personas["assessor"]).get("/field/today/").status_code == 403
    assert project.case.number not in client_for(personas["outsider"]).get("/field/today/").content.decode()
    assert project.case.number in client_for(personas["director"]).get("/field/today/").content.decode()


def test_the_day_takes_the_same_number_of_queries_for_more_files(day, client_for, personas, approved, at, town):
    c = client_for(personas["inspector"])
    c.get("/field/today/")
    with CaptureQueriesContext(connection) as one:
        c.get("/field/week/")
    from stormwater.permits.models import PermitApplication
    from stormwater.permits import workflow as permit_wf
    # three more construction files (opened on copies of the approved permit), each with an inspection and a storm
    for i in range(3):
        app = PermitApplication.objects.get(pk=approved.pk)
        app.pk = None
        app.case = approved.case.__class__.objects.create(kind="permit", number=f"SWP-2026-09{i}", title="copy",
                                                          status=permit_wf.Status.APPROVED)
        app.save()
        p = _open_project(app, personas, address="copy", lat=42.05 + i / 100, lon=-72.58)
        at(date(2026, 7, 1), 11)
        cs.inspection_report_file(project=p, report=report("erosion_pre_start", dt(2026, 7, 1, 10)),
                                  acting_user=personas["inspector"])
        at(date(2026, 7, 5), 19)  # rainfall is recorded after it fell (issue 18)
        cs.rain_event_record(project=p, ended_at=dt(2026, 7, 5, 18), rain_in=D("0.5"), source="gauge",
                             acting_user=personas["staff"])
    at(date(2026, 7, 6), 7)
    with CaptureQueriesContext(connection) as four:
        html = c.get("/field/week/").content.decode()
    assert html.count("Storm inspection") == 4
    assert len(four) == len(one), [q["sql"][:120] for q in four.captured_queries]


def test_the_form_shows_the_sections_of_its_type_and_prefills_the_inspector(day, client_for, personas):
    project, storm = day
    personas["inspector"].first_name, personas["inspector"].last_name = "Ivy", "Inspector"
    personas["inspector"].save()
    c = client_for(personas["inspector"])
    r = c.post("/account/profile/", {"first_name": "Ivy", "last_name": "Inspector", "credentials": "CESSWI #77"})
    assert r.status_code == 302
    html = c.get(f"/field/{project.case.number}/report/?kind=erosion_storm&storm={storm.pk}").content.decode()
    assert 'value="Ivy Inspector"' in html and 'value="CESSWI #77"' in html and 'value="2026-07-06T07:00"' in html
    assert f'<option value="{storm.pk}" selected>' in html and 'value="0.30"' in html
    assert "Silt fence along the brook" in html and 'capture="environment"' in html and "multiple" in html

    def section(legend):
        tag = html.split(legend)[0].rsplit("<fieldset", 1)[1]
        return "hidden disabled" not in tag
    assert section("The storm (CGP 2022") and section("Erosion and sediment controls")
    assert not section("Pre-bury (§ 380-16") and not section("Final inspection (§ 380-16") and not section("Stormwater BMPs")
    html = c.get(f"/field/{project.case.number}/report/?kind=final").content.decode()
    assert section("Final inspection (§ 380-16") and section("Stormwater BMPs")
    assert not section("The storm (CGP 2022") and not section("Erosion and sediment controls")


def _post(project, storm, **extra):
    data = {"number": project.case.number, "client_key": KEY, "kind": "erosion_storm", "inspected_at": "2026-07-06T06:30",
            "location": "whole site", "inspector_name": "Ivy Inspector", "inspector_credentials": "CPESC #1234",
            "last_inspection": "2026-07-01", "weather": "Clearing, 68 °F", "precipitation_24h_in": "0.30",
            "evaluation": "compliant", "storm_id": str(storm.pk), "rows": "1",
            "row-0-ref": f"c:{project.controls.get().pk}", "row-0-condition": "in_place",
            "signature_method": "drawn", "seen_status": project.case.status,
            "seen_last": str(project.inspections.order_by("-id").first().pk),
            "photos": [upload("a.jpg", jpeg_bytes()), upload("b.jpg", jpeg_bytes(color=(200, 80, 30)))],
            "signature_png": upload("signature.png", png_bytes(), "image/png")}
    data.update(extra)
    return data


def test_the_outbox_endpoint_files_a_report_once(day, client_for, personas):
    project, storm = day
    c = client_for(personas["inspector"])
    r = c.post("/field/reports/", _post(project, storm))
    assert r.status_code == 201, r.content
    j = r.json()
    insp = Inspection.objects.get(client_key=KEY)
    assert j["status"] == "filed" and j["report"] == insp.pk and j["pdf"].endswith(f"/documents/{insp.document_id}/")
    assert insp.photos.count() == 2 and insp.rows.get().condition == "in_place" and insp.signature_method == "drawn"
    again = c.post("/field/reports/", _post(project, storm))
    assert again.status_code == 200 and again.json()["status"] == "already_filed" and again.json()["report"] == insp.pk
    assert Inspection.objects.filter(project=project, kind="erosion_storm").count() == 1
    # the report page shows the photos (thumbnails), each served as an image to those who may see the file
    page = c.get(j["url"]).content.decode()
    assert page.count("/thumb/") == 2 and "42.05050, -72.58264" in page and "Jul 6, 2026, 9:58 AM" in page
    ph = insp.photos.first()
    t = c.get(f"/construction/{project.case.number}/photos/{ph.pk}/thumb/")
    assert t.status_code == 200 and t["Content-Type"] == "image/jpeg"
    # the day no longer lists the storm inspection
    assert "Storm inspection" not in c.get("/field/today/").content.decode()
    assert client_for(personas["owner"]).get(f"/construction/{project.case.number}/photos/{ph.pk}/").status_code == 200
    assert client_for(personas["outsider"]).get(f"/construction/{project.case.number}/photos/{ph.pk}/").status_code == 404


def test_the_outbox_endpoint_answers_conflicts_refusals_and_sign_in(day, client_for, personas):
    from django.test import Client

    project, storm = day
    anonymous = Client().post("/field/reports/", _post(project, storm))
    assert anonymous.status_code == 401 and anonymous.json()["error"] == "authentication required"
    assert client_for(personas["outsider"]).post("/field/reports/", _post(project, storm)).status_code == 404
    c = client_for(personas["inspector"])  # (client_for signs the one test client in as this person)
    r = c.post("/field/reports/", _post(project, storm, weather=""))
    assert r.status_code == 400 and "[e] weather" in r.json()["errors"][0]
    r = c.post("/field/reports/", _post(project, storm, client_key=""))
    assert r.status_code == 400 and "client_key" in r.json()["errors"][0]
    r = c.post("/field/reports/", _post(project, storm, signature_method="", signature_png=""))
    assert r.status_code == 400 and "Sign the report" in r.json()["errors"][0]
    # meanwhile someone else filed this storm's inspection, and the Director issued a stop-work order
    other = cs.inspection_report_file(project=project, report=report(
        "erosion_storm", dt(2026, 7, 6, 6, 45), last_inspection=date(2026, 7, 1), storm_id=storm.pk,
        inspector_name="Sam Staff", evaluation="violations", corrective_steps="Restake", findings="Fence down"),
        acting_user=personas["staff"])
    project.refresh_from_db()
    v = cs.violation_notice_issue(project=project, description="Fence down", corrective_actions="Restake",
                                  correct_by=date(2026, 7, 8), acting_user=personas["director"])
    cs.stop_work_issue(project=project, violations=[v], reason="Sediment in the brook", acting_user=personas["director"])
    seen = {"seen_status": "active", "seen_last": str(other.pk - 1)}
    r = c.post("/field/reports/", _post(project, storm, **seen))
    j = r.json()
    assert r.status_code == 409 and j["status"] == "conflict"
    assert any("Stop-work order in force" in x for x in j["conflicts"])
    assert any("Sediment in the brook" in x for x in j["conflicts"])
    assert any(f"storm inspection for this storm was already filed by Sam Staff" in x and f"report {other.pk}" in x
               for x in j["conflicts"])
    assert not Inspection.objects.filter(client_key=KEY).exists()
    r = c.post("/field/reports/", _post(project, storm, force="1", **seen))
    assert r.status_code == 201 and Inspection.objects.filter(client_key=KEY).count() == 1


def test_the_desk_form_posts_without_script(day, client_for, personas):
    project, storm = day
    c = client_for(personas["inspector"])

    def data(**kw):
        d = _post(project, storm, **{"signature_method": "typed", "attest": "1", "signed_name": "Ivy Inspector",
                                     "client_key": "", **kw})
        d.pop("signature_png")
        return d
    # refused: typed without the attestation; the form keeps what was typed, marks the box (issue 16 "Forms": 400,
    # the error at the field) and asks for the photos again
    r = c.post(f"/construction/{project.case.number}/report/", data(attest=""))
    html = r.content.decode()
    assert r.status_code == 400 and "Tick “I attest that this report is true" in html and "Choose the photos again" in html
    assert 'value="Clearing, 68 °F"' in html and not Inspection.objects.filter(kind="erosion_storm").exists()
    attest = re.search(r'<input[^>]*name="attest"[^>]*>', html).group(0)
    assert 'aria-invalid="true"' in attest and " checked" not in attest and 'class="error-summary"' in html
    r = c.post(f"/construction/{project.case.number}/report/", data())
    insp = Inspection.objects.get(kind="erosion_storm")
    assert r.status_code == 302 and r.url == f"/construction/{project.case.number}/inspections/{insp.pk}/"
    assert insp.signature_method == "typed" and insp.client_key is None and insp.photos.count() == 2


def test_service_worker_and_manifest(client):
    r = client.get("/field/sw.js")
    assert r.status_code == 200 and r["Content-Type"].startswith("text/javascript")
    assert r["Service-Worker-Allowed"] == "/field/" and r["Cache-Control"] == "no-cache"
    assert b'addEventListener("fetch"' in r.content and "Content-Security-Policy" in r
    m = client.get("/field/manifest.webmanifest")
    assert m["Content-Type"].startswith("application/manifest+json")
    j = json.loads(m.content)
    assert j["start_url"] == "/field/today/" and j["scope"] == "/field/"
    for icon in j["icons"]:
        assert client.get(icon["src"]).status_code == 200


def test_a_report_missing_an_item_of_the_rule_marks_that_input(day, client_for, personas):
    """§ 380-16 C(4)(f)[1][e]: a report without the weather is refused naming the item; the form (issue 16 "Forms")
    comes back with everything typed and the weather input marked; a depth that is not one marks the precipitation."""
    project, storm = day
    c = client_for(personas["inspector"])
    d = _post(project, storm, **{"signature_method": "typed", "attest": "1", "signed_name": "Ivy Inspector",
                                 "client_key": "", "weather": "  "})
    d.pop("signature_png")
    r = c.post(f"/construction/{project.case.number}/report/", d)
    html = r.content.decode()
    assert r.status_code == 400 and "[e] weather at time of inspection" in html
    assert 'aria-invalid="true"' in re.search(r'<(?:input|textarea)[^>]*name="weather"[^>]*>', html).group(0)
    assert f'value="{d["location"]}"' in html
    d.update(weather="Clearing, 68 °F", precipitation_24h_in="lots")
    r = c.post(f"/construction/{project.case.number}/report/", d)
    tag = re.search(r'<input[^>]*name="precipitation_24h_in"[^>]*>', r.content.decode()).group(0)
    assert r.status_code == 400 and 'aria-invalid="true"' in tag and 'value="lots"' in tag
    assert not Inspection.objects.filter(kind="erosion_storm").exists()
