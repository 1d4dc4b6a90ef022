"""The permit workflow through the JSON write API only (issue 6): start → uploads → file → complete →
information request → the applicant's response → approval with conditions → close; each endpoint takes the
web view's permission and reaches the file through the same selector (404 for someone else's file, 403 for a
role that may not act), answers bad input with 400 naming the field, and a service's refusal with 400 and
the service's own message."""
from datetime import date

import pytest
from django.test import Client

from stormwater.cases.services import ERR_ILLEGAL
from stormwater.permits import services as sv
from stormwater.permits.selectors import ERR_NOT_READY
from stormwater.permits.checklist import ITEMS
from stormwater.permits.models import PermitApplication
from stormwater.workbench import catalog

from .conftest import complete_package, pdf_upload

pytestmark = pytest.mark.django_db

START = {"owner_name": "Olivia Owner", "owner_address": "1 Elm St\nLongmeadow, MA 01106", "site_address": "1 Elm St",
         "parcel_ids": ["01-01-1"], "description": "Eight-lot subdivision with a new road", "project_type": "new",
         "disturbance_sqft": 87120, "wetlands_jurisdiction": True}


def post(client, url, body=None, *, status=200):
    r = client.post(url, body or {}, content_type="application/json")
    assert r.status_code == status, (url, r.status_code, r.content[:600])
    return r.json()


def upload(client, number, tag, *, status=201, content=None):
    r = client.post(f"/api/permits/{number}/upload/", {"tag": tag, "file": pdf_upload(f"{tag}.pdf", **(
        {"content": content} if content is not None else {}))})
    assert r.status_code == status, (tag, r.status_code, r.content[:600])
    return r.json()


@pytest.fixture
def filed(draft, personas, at):
    at(date(2026, 3, 2))
    complete_package(draft, personas["staff"])
    sv.permit_file(application=draft, acting_user=personas["owner"])
    return draft


def test_the_workflow_through_the_api(client_for, personas, town, at):
    # Start: the owner opens a draft for their own lot; the permittee is the owner of record.
    at(date(2026, 3, 2))
    c = client_for(personas["owner"])
    out = post(c, "/api/permits/new/", START, status=201)
    number = out["number"]
    app = PermitApplication.objects.get(case__number=number)
    assert out["status"] == "draft" and out["permittee"] == "Olivia Owner" and app.owner.user == personas["owner"]
    assert out["determination"]["outcome"] and {i["key"] for i in out["checklist"]} == {i.key for i in ITEMS}
    base = f"/api/permits/{number}/"

    # Uploads, one per checklist document (AutoCAD is not applicable: plans not drawn in AutoCAD).
    for item in ITEMS:
        if item.by_upload and item.key != "autocad":
            out = upload(c, number, item.key)
            assert out["document"]["tag"] == item.key and out["document"]["content_type"] == "application/pdf"
    done = {i["key"]: i["done"] for i in out["checklist"]}
    assert done == {i.key: i.key not in ("paper_copies", "fees") for i in ITEMS}

    # Filing is refused without the paper copies and the fees (issue 30): staff take them at the counter.
    err = post(c, base + "file/", status=400)["error"]
    assert "Three paper copies" in err and "$2,000.00" in err
    s = client_for(personas["staff"])
    post(s, base + "checklist/paper_copies/confirm/", {"note": "3 sets"})
    post(s, base + "fees-paid/", {"paid_on": "2026-03-02", "receipt": "R-100"})

    # File: the 42-day clock starts, the fees as paid.
    c = client_for(personas["owner"])
    out = post(c, base + "file/")
    assert out["status"] == "filed" and out["filed_on"] == "2026-03-02" and out["fees_total"] == "2000.00"
    assert {k["kind"]: k["due"] for k in out["clocks"]}["action"] == "2026-04-13"

    # Staff: complete → review.
    at(date(2026, 3, 4))
    s = client_for(personas["staff"])
    out = post(s, base + "complete/")
    assert out["status"] == "under_review"

    # An information request stops the action clock; the applicant's response restarts it.
    out = post(s, base + "info-request/", {"items": ["Test pit logs for the basin", "Drainage calculations"]})
    assert out["status"] == "info_requested"
    assert {k["kind"]: k["due"] for k in out["clocks"]}["action"] is None
    assert app.info_requests.get().document.tag == "info_request"
    at(date(2026, 3, 10))
    c = client_for(personas["owner"])
    out = post(c, base + "info-response/", {"response": "Logs and calculations uploaded."})
    assert out["status"] == "under_review"
    req = app.info_requests.get()
    assert req.responded_on == date(2026, 3, 10) and req.response == "Logs and calculations uploaded."
    # Stopped Mar 4–10 (7 days): Apr 13 + 7 = Mon Apr 20, Patriots' Day (a legal holiday) → Tue Apr 21.
    action = {k["kind"]: k for k in out["clocks"]}["action"]
    assert action["tolled_days"] == 7 and action["due"] == "2026-04-21"

    # The applicant may not decide (403); the Director decides, with conditions.
    at(date(2026, 3, 20))
    decision = {"kind": "approve_conditions", "findings": "The plan meets the standards.",
                "standards": ["380-11B", "380-11D"],
                "conditions": ["Silt fence along the brook before clearing", "Infiltration basin tested"]}
    r = client_for(personas["owner"]).post(base + "decide/", decision, content_type="application/json")
    assert r.status_code == 403 and "permit.decide" in r.json()["error"]
    d = client_for(personas["director"])
    # The one approval gate (issue 30): refused until the reviewer's checklists are reviewed, through the API too.
    assert "every checklist item reviewed" in post(d, base + "decide/", decision, status=400)["error"]
    post(client_for(personas["staff"]), base + "workbench/findings",
         {"findings": [{"para": e.para, "finding": "provided"} for e in catalog.ITEMS]}, status=201)
    d = client_for(personas["director"])  # one test client: signed in as the Director again
    out = post(d, base + "decide/", decision)
    assert out["status"] == "approved_conditions" and out["decision"] == "approve_conditions"
    assert out["decided_on"] == "2026-03-20"
    assert out["conditions"] == ["Silt fence along the brook before clearing", "Infiltration basin tested"]
    assert app.case.documents.filter(tag="decision", generated=True).exists()

    # Close.
    out = post(d, base + "close/", {"why": "Certificate of completion issued"})
    assert out["status"] == "closed"
    moves = [(e.from_status, e.to_status, e.actor.username) for e in app.case.events.filter(kind="status")]
    assert moves == [("draft", "filed", "owner"), ("filed", "under_review", "staff"),
                     ("under_review", "info_requested", "staff"), ("info_requested", "under_review", "owner"),
                     ("under_review", "approved_conditions", "director"), ("approved_conditions", "closed", "director")]


def test_another_owner_gets_404_on_every_write(client_for, personas, filed):
    number = filed.case.number
    other = client_for(personas["outsider"])
    for action in ("file/", "info-response/", "upload/"):
        r = other.post(f"/api/permits/{number}/{action}", {}, content_type="application/json")
        assert r.status_code == 404 and r.json() == {"error": "No such permit application."}, action
    r = other.post(f"/api/permits/{number}/upload/", {"tag": "swmp", "file": pdf_upload()})
    assert r.status_code == 404
    assert other.post("/api/permits/NO-SUCH/file/", {}, content_type="application/json").status_code == 404
    filed.case.refresh_from_db()
    assert filed.case.status == "filed" and filed.case.documents.filter(uploaded_by=personas["outsider"]).count() == 0


def test_roles_and_persons_that_may_not_act_get_403(client_for, personas, filed, at):
    number = filed.case.number
    # An applicant may not determine completeness or extend the clock.
    owner = client_for(personas["owner"])
    for action in ("complete/", "incomplete/", "info-request/", "extend/", "close/"):
        r = owner.post(f"/api/permits/{number}/{action}", {}, content_type="application/json")
        assert r.status_code == 403, action
    # A collector sees every file but is not the applicant: the applicant's acts are refused.
    r = client_for(personas["collector"]).post(f"/api/permits/{number}/upload/", {"tag": "swmp",
                                                                                  "file": pdf_upload()})
    assert r.status_code == 403
    # Anonymous: 401.
    assert Client().post(f"/api/permits/{number}/file/", {}, content_type="application/json").status_code == 401
    filed.case.refresh_from_db()
    assert filed.case.status == "filed"


def test_applicant_acts_check_the_role_then_the_applicant_like_the_web_views(client_for, personas, filed, at):
    """A role without ``permit.apply`` is refused first (403); staff recording a paper response may act."""
    at(date(2026, 3, 4))
    sv.permit_determine_complete(application=filed, acting_user=personas["staff"])
    sv.permit_request_information(application=filed, items="Test pits", acting_user=personas["staff"])
    r = client_for(personas["consultant"]).post(f"/api/permits/{filed.case.number}/info-response/",
                                                {"response": "x"}, content_type="application/json")
    assert r.status_code == 403 and "permit.apply" in r.json()["error"]
    # Staff (permit.apply and permit.review) record a response received on paper, as on the web page.
    out = post(client_for(personas["staff"]), f"/api/permits/{filed.case.number}/info-response/",
               {"response": "Received at the counter."})
    assert out["status"] == "under_review"
    assert filed.info_requests.get().response == "Received at the counter."


def test_bad_input_is_400_naming_the_field(client_for, personas, town, filed, at):
    number = filed.case.number
    base = f"/api/permits/{number}/"
    owner = client_for(personas["owner"])
    assert post(owner, "/api/permits/new/", {**START, "disturbance_sqft": "lots"},
                status=400)["error"].startswith("disturbance_sqft:")
    assert post(owner, "/api/permits/new/", {k: v for k, v in START.items() if k != "site_address"},
                status=400)["error"].startswith("site_address:")
    assert post(owner, "/api/permits/new/", {**START, "parcel_ids": ["99-99-9"]},
                status=400)["error"] == "parcel_ids: unknown parcel ids: 99-99-9"
    r = owner.post("/api/permits/new/", b"{not json", content_type="application/json")
    assert r.status_code == 400 and r.json()["error"] == "input: not valid JSON"
    assert post(owner, base + "upload/", {}, status=400)["error"].startswith("tag:")
    r = owner.post(base + "upload/", {"tag": "swmp"})
    assert r.status_code == 400 and r.json()["error"].startswith("file:")
    # The content is sniffed, not the name: a text file called .pdf is refused with the service's message.
    # (issue 18: a permit's documents include the plan's data file, so JSON and YAML are named among the types)
    from stormwater.cases.services import ERR_TYPES
    r = owner.post(base + "upload/", {"tag": "swmp", "file": pdf_upload("plan.pdf", b"just some text here")})
    assert r.status_code == 400 and r.json()["error"] == ERR_TYPES.format(
        labels="PDF, PNG, JPEG, AutoCAD DWG, JSON and YAML")

    at(date(2026, 3, 4))
    staff = client_for(personas["staff"])
    assert post(staff, base + "incomplete/", {"note": "x"}, status=400)["error"] == "cure_by: required (YYYY-MM-DD)"
    assert post(staff, base + "incomplete/", {"cure_by": "soon"}, status=400)["error"].startswith("cure_by:")
    assert post(staff, base + "extend/", {"days": "a week", "reason": "x"}, status=400)["error"].startswith("days:")
    assert post(staff, base + "info-request/", {"items": [1, 2]}, status=400)["error"].startswith("items:")
    director = client_for(personas["director"])
    err = post(director, base + "decide/", {"kind": "approve", "standards": ["380-11B"]}, status=400)["error"]
    assert err.startswith("findings:")
    err = post(director, base + "decide/", {"kind": "deny_incomplete", "findings": "x", "standards": ["380-11B"]},
               status=400)["error"]
    assert err.startswith("kind:")
    filed.case.refresh_from_db()
    assert filed.case.status == "filed"


def test_an_illegal_transition_is_400_with_the_services_message(client_for, personas, town, draft, at):
    at(date(2026, 3, 2))
    number = draft.case.number
    director = client_for(personas["director"])
    r = post(director, f"/api/permits/{number}/decide/", {"kind": "approve", "findings": "Fine.",
                                                          "standards": ["380-11B"]}, status=400)
    assert r["error"] == ERR_ILLEGAL.format(kind="permit", src="Draft (not filed)", dst="Approved")
    assert post(director, f"/api/permits/{number}/close/", status=400)["error"] == ERR_ILLEGAL.format(
        kind="permit", src="Draft (not filed)", dst="Closed: review and oversight complete")
    # A precondition: filing is refused while items are missing, naming them (the service's message, issue 30).
    err = post(client_for(personas["owner"]), f"/api/permits/{number}/file/", status=400)["error"]
    assert err.startswith(ERR_NOT_READY) and "Three paper copies" in err
    draft.case.refresh_from_db()
    assert draft.case.status == "draft"


def test_incomplete_with_cure_by_and_an_extension_with_its_reason(client_for, personas, filed, at):
    at(date(2026, 3, 4))
    number = filed.case.number
    staff = client_for(personas["staff"])
    out = post(staff, f"/api/permits/{number}/extend/", {"days": 14, "reason": "Agreed with the applicant"})
    action = {k["kind"]: k for k in out["clocks"]}["action"]
    assert action["extensions"] == [{"days": 14, "reason": "Agreed with the applicant"}]
    assert action["due"] == "2026-04-27"
    # The service's refusal of an extension without its reason.
    from stormwater.cases.services import ERR_EXT_REASON
    assert post(staff, f"/api/permits/{number}/extend/", {"days": 3}, status=400)["error"] == ERR_EXT_REASON
    # Incomplete: every item is in, so the Director's note says what is missing; the cure clock runs.
    out = post(staff, f"/api/permits/{number}/incomplete/", {"cure_by": "2026-03-20",
                                                             "note": "The O&M plan is not signed."})
    assert out["status"] == "incomplete"
    clocks = {k["kind"]: k for k in out["clocks"]}
    assert clocks["cure"]["due"] == "2026-03-20" and clocks["action"]["due"] is None
    assert filed.case.documents.filter(tag="incomplete_notice").count() == 1


def test_writes_are_not_csrf_exempt(personas, filed):
    c = Client(enforce_csrf_checks=True)
    c.force_login(personas["owner"])
    r = c.post(f"/api/permits/{filed.case.number}/info-response/", {"response": "x"},
               content_type="application/json")
    assert r.status_code == 403
    r = c.post("/api/permits/new/", START, content_type="application/json")
    assert r.status_code == 403
