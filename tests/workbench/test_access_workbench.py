"""Who may do what on the workbench: reviewers (PERMIT_REVIEW) record and raise, the Director
(PERMIT_DECIDE) decides, the applicant reads their own file's checklists read-only and may request a
waiver from an item, everyone else gets 404 for a file they cannot reach."""
from __future__ import annotations

import json

import pytest

from stormwater.workbench.models import ItemFinding

pytestmark = pytest.mark.django_db

C6 = "380-12 A(3)(c)[6]"
KEY = "380-12-A-3-c-6"


def urls(n):
    w = f"/permits/{n}/workbench/"
    return [w, w + "swmp/", w + "standards/", w + f"items/{KEY}/", w + "summary/", w + "summary.pdf",
            f"/api/permits/{n}/workbench/"]


def test_anonymous_is_sent_to_login_and_the_api_answers_401(client, reviewing):
    n = reviewing.case.number
    for u in urls(n)[:-1]:
        r = client.get(u)
        assert r.status_code == 302 and r.url.startswith("/login/"), u
    assert client.get(urls(n)[-1]).status_code == 401
    assert client.get("/pre-application/").status_code == 302


@pytest.mark.parametrize("who", ["outsider", "consultant", "assessor"])
def test_a_file_one_cannot_reach_is_404(client_for, personas, reviewing, who):
    c = client_for(personas[who])
    for u in urls(reviewing.case.number):
        assert c.get(u).status_code == 404, u


@pytest.mark.parametrize("who", ["owner", "inspector", "collector", "staff", "director"])
def test_those_who_reach_the_file_read_it(client_for, personas, reviewing, who):
    c = client_for(personas[who])
    for u in urls(reviewing.case.number):
        assert c.get(u).status_code == 200, u


def test_the_applicant_reads_read_only_and_may_not_record_raise_or_decide(client_for, personas, reviewing):
    n = reviewing.case.number
    c = client_for(personas["owner"])
    page = c.get(f"/permits/{n}/workbench/swmp/").content.decode()
    assert "<select" not in page and "Record the findings" not in page
    w = f"/permits/{n}/workbench/"
    assert c.post(w + "swmp/record/", {f"f-{C6}": "provided"}).status_code == 403
    assert c.post(w + f"items/{KEY}/record/", {f"f-{C6}": "provided"}).status_code == 403
    assert c.post(w + "raise/", {"item": [C6]}).status_code == 403
    assert c.post(w + "decide/", {}).status_code == 403
    assert c.post(w + "summary/keep/").status_code == 403
    r = c.post(f"/api/permits/{n}/workbench/findings", json.dumps({"findings": []}), content_type="application/json")
    assert r.status_code == 403
    assert not ItemFinding.objects.exists()
    # … but may ask for a waiver from an item of their own file (§ 380-8 B).
    r = c.post(w + "waiver/", {"key": KEY, "justification": "groundwater monitored by the Town's well log"})
    assert r.status_code == 302 and reviewing.waivers.count() == 1
    assert client_for(personas["outsider"]).post(w + "waiver/", {"key": KEY, "justification": "x"}).status_code == 404


def test_an_inspector_reads_but_only_reviewers_record_and_only_the_director_decides(client_for, personas, reviewing):
    n = reviewing.case.number
    w = f"/permits/{n}/workbench/"
    assert client_for(personas["inspector"]).post(w + "swmp/record/", {f"f-{C6}": "provided"}).status_code == 403
    c = client_for(personas["staff"])
    assert c.post(w + "swmp/record/", {f"f-{C6}": "provided", f"page-{C6}": "C-2"}).status_code == 302
    assert ItemFinding.objects.get().reviewer == personas["staff"]
    assert c.post(w + "decide/", {"kind": "approve"}).status_code == 403
    r = c.post(f"/api/permits/{n}/workbench/findings", json.dumps({"findings": [
        {"para": "380-12 A(3)(b)", "finding": "deficient", "comment": "USGS quad missing"}]}),
        content_type="application/json")
    assert r.status_code == 201 and r.json()["recorded"][0]["paragraph"] == "§ 380-12 A(3)(b)"
    r = c.post(f"/api/permits/{n}/workbench/findings", json.dumps({"findings": [
        {"para": "380-12 A(3)(b)", "finding": "deficient"}]}), content_type="application/json")
    assert r.status_code == 400 and "comment" in r.json()["error"]
    data = c.get(f"/api/permits/{n}/workbench/").json()
    assert data["glance"]["open_deficiencies"] == 1
    assert {i["paragraph"]: i["state"] for i in data["items"]}["§ 380-12 A(3)(b)"] == "deficient"


def test_approval_is_refused_while_items_are_not_reviewed(client_for, personas, reviewing):
    c = client_for(personas["director"])
    r = c.post(f"/permits/{reviewing.case.number}/workbench/decide/", {
        "kind": "approve", "findings": "ok", "standards": ["380-11B"]})
    assert r.status_code == 400 and "not reviewed" in r.content.decode()  # the decision form again (issue 16)
    reviewing.case.refresh_from_db()
    assert reviewing.case.status == "under_review"


def test_pre_application_meetings_by_role(client_for, personas):
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from stormwater.workbench.services import meeting_schedule

    m = meeting_schedule(applicant_name="Olivia Owner", site_address="1 Elm St", acting_user=personas["staff"],
                         scheduled_at=datetime(2026, 2, 3, 10, tzinfo=ZoneInfo("America/New_York")),
                         applicant=personas["owner"])
    assert client_for(personas["owner"]).get(f"/pre-application/{m.pk}/").status_code == 200
    assert client_for(personas["owner"]).post(f"/pre-application/{m.pk}/record/", {"notes": "x"}).status_code == 403
    assert client_for(personas["outsider"]).get(f"/pre-application/{m.pk}/").status_code == 404
    assert client_for(personas["owner"]).post("/pre-application/new/", {}).status_code == 403
    r = client_for(personas["staff"]).get("/pre-application/")
    assert r.status_code == 200 and "1 Elm St" in r.content.decode()


def test_the_findings_api_checks_the_csrf_token(personas, reviewing):
    from django.test import Client

    c = Client(enforce_csrf_checks=True)
    c.force_login(personas["staff"])
    r = c.post(f"/api/permits/{reviewing.case.number}/workbench/findings",
               json.dumps({"findings": [{"para": C6, "finding": "provided"}]}), content_type="application/json")
    assert r.status_code == 403 and not ItemFinding.objects.exists()
