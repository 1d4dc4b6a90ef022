"""Who reaches which permit file: an applicant only their own, a consultant only the files they are
engaged on, staff all; anyone else gets 404 (no probing). Each action checks its role."""
from datetime import date
from decimal import Decimal as D

import pytest

from stormwater.permits import services as sv

from .conftest import complete_package


@pytest.fixture
def filed(draft, personas, at):
    at(date(2026, 3, 2))
    complete_package(draft, personas["staff"])
    sv.permit_file(application=draft, acting_user=personas["owner"])
    return draft


def urls(number):
    b = f"/permits/{number}/"
    return [b, b + "abutters/letters.pdf", b + "abutters/labels.pdf", b + "account/report.pdf",
            f"/api/permits/{number}/"]


def test_an_applicant_reaches_only_their_own_file(client_for, personas, filed):
    number = filed.case.number
    doc = filed.case.documents.first()
    mine = client_for(personas["owner"])
    for u in urls(number) + [f"/permits/{number}/documents/{doc.pk}/"]:
        assert mine.get(u).status_code == 200, u
    assert number in mine.get("/permits/").content.decode()
    assert [p["number"] for p in mine.get("/api/permits/").json()["permits"]] == [number]
    other = client_for(personas["outsider"])
    for u in urls(number) + [f"/permits/{number}/documents/{doc.pk}/"]:
        assert other.get(u).status_code == 404, u
    assert number not in other.get("/permits/").content.decode()
    assert other.get("/api/permits/").json()["permits"] == []
    # Acting on someone else's file is as unreachable as reading it.
    assert other.post(f"/permits/{number}/withdraw/").status_code == 404
    filed.case.refresh_from_db()
    assert filed.case.status == "filed"


def test_a_consultant_reaches_only_the_files_they_are_engaged_on(client_for, personas, filed, at):
    c = client_for(personas["consultant"])
    assert c.get(f"/permits/{filed.case.number}/").status_code == 404
    at(date(2026, 3, 6))
    sv.permit_determine_complete(application=filed, acting_user=personas["staff"])
    sv.consultant_select(application=filed, name="Pat", degree="PE", services="review", fee=D("100"),
                         notice_on=date(2026, 3, 6), acting_user=personas["director"], user=personas["consultant"])
    c = client_for(personas["consultant"])
    assert c.get(f"/permits/{filed.case.number}/").status_code == 200
    # A consultant uploads reports, nothing else.
    from .conftest import pdf_upload
    r = c.post(f"/permits/{filed.case.number}/upload/", {"tag": "swmp", "file": pdf_upload()})
    assert r.status_code == 403


def test_anonymous_users_go_to_login_and_the_api_says_401(client, filed):
    r = client.get(f"/permits/{filed.case.number}/")
    assert r.status_code == 302 and r.url.startswith("/login/")
    assert client.get("/api/permits/").status_code == 401
    assert client.get("/permits/applicability/").status_code == 200  # public questionnaire
    r = client.post("/api/permits/applicability", {"disturbance_acres": "0.5", "on": "2026-03-02"},
                    content_type="application/json")
    assert r.status_code == 200 and r.json()["outcome"] == "not_required" and r.json()["lid_guidance"]
    assert client.post("/api/permits/applicability", "[1]", content_type="application/json").status_code == 400


@pytest.mark.parametrize("role,path,status", [
    ("owner", "complete/", 403), ("owner", "decide/", 403), ("owner", "consultant/", 403),
    ("owner", "account/", 403), ("owner", "checklist/fees/confirm/", 403),
    ("staff", "decide/", 403), ("staff", "consultant/", 403), ("staff", "account/", 403),
    ("staff", "consultant/appeal/decide/", 403), ("staff", "close/", 403),
    ("collector", "complete/", 403), ("collector", "decide/", 403), ("clerk", "consultant/", 403),
    ("inspector", "complete/", 403), ("assessor", "complete/", 403), ("consultant", "complete/", 403),
    ("outsider", "file/", 404),
])
def test_role_matrix_for_actions(client_for, personas, filed, role, path, status):
    r = client_for(personas[role]).post(f"/permits/{filed.case.number}/{path}", {})
    assert r.status_code == status


def test_the_director_alone_decides_and_only_staff_determine_completeness(client_for, personas, filed):
    assert client_for(personas["staff"]).post(f"/permits/{filed.case.number}/complete/").status_code == 302
    filed.case.refresh_from_db()
    assert filed.case.status == "under_review"


def test_staff_may_record_a_paper_filing_but_other_owners_may_not_open_in_someone_elses_name(client_for, personas,
                                                                                           draft):
    complete_package(draft, personas["staff"])
    assert client_for(personas["staff"]).post(f"/permits/{draft.case.number}/file/").status_code == 302
    assert client_for(personas["assessor"]).get("/permits/new/").status_code == 403
    assert client_for(personas["director"]).get("/permits/rule-hearings/").status_code == 200
    assert client_for(personas["staff"]).get("/permits/rule-hearings/").status_code == 403


def test_the_select_board_clerk_records_an_appeal_received(client_for, personas, filed, at):
    at(date(2026, 3, 6))
    sv.permit_determine_complete(application=filed, acting_user=personas["staff"])
    sv.consultant_select(application=filed, name="Pat", degree="PE", services="review", fee=D("100"),
                         notice_on=date(2026, 3, 6), acting_user=personas["director"])
    at(date(2026, 3, 9))
    r = client_for(personas["clerk"]).post(f"/permits/{filed.case.number}/consultant/appeal/",
                                           {"received_on": "2026-03-09", "ground": "conflict", "statement": "x"})
    assert r.status_code == 302
    filed.case.refresh_from_db()
    assert filed.case.status == "consultant_appeal"
    r = client_for(personas["inspector"]).post(f"/permits/{filed.case.number}/consultant/appeal/", {})
    assert r.status_code == 403


def test_segmentation_is_flagged_on_a_new_application(client_for, personas, town):
    c = client_for(personas["owner"])
    r = c.post("/permits/new/", {
        "owner_name": "Olivia Owner", "owner_address": "1 Elm St", "site_address": "1 Elm St", "parcel_ids": "01-01-1",
        "description": "Barn", "project_type": "new", "disturbance_sqft": "20000",
        "other_work": "Driveway and clearing; 30000; 2025-11-01; yes; no"})
    assert r.status_code == 302
    from stormwater.permits.models import PermitApplication
    app = PermitApplication.objects.get()
    assert app.segmentation_flagged and app.determination["outcome"] == "not_required"
    page = client_for(personas["director"]).get(f"/permits/{app.case.number}/").content.decode()
    assert "Possible segmentation flagged" in page and "Record finding" in page
    r = client_for(personas["director"]).post(f"/permits/{app.case.number}/segmentation/",
                                              {"finding": "one_project", "reason": "One barn-and-drive plan"})
    app.refresh_from_db()
    assert app.segmentation_finding == "one_project"


def test_the_list_page_costs_the_same_queries_for_one_file_or_many(client_for, personas, filed,
                                                                   django_assert_max_num_queries):
    from stormwater.parcels.models import Owner
    owner = Owner.objects.get(user=personas["owner"])
    for i in range(5):
        app = sv.permit_application_start(acting_user=personas["owner"], owner=owner, owner_name=owner.name,
                                          site_address=f"{i} Elm", description="x", disturbance_sqft=D(50000))
        complete_package(app, personas["staff"])
        sv.permit_file(application=app, acting_user=personas["owner"])
    c = client_for(personas["staff"])
    with django_assert_max_num_queries(12):
        page = c.get("/permits/").content.decode()
    assert page.count("Mon, Apr 13, 2026") == 6  # every file filed on Mar 2 shows its due date


def test_letters_to_the_applicant_are_emailed_where_there_is_an_address(personas, filed, at,
                                                                        django_capture_on_commit_callbacks):
    from django.core import mail
    personas["owner"].email = "olivia@example.com"
    personas["owner"].save()
    at(date(2026, 3, 5))
    with django_capture_on_commit_callbacks(execute=True):
        sv.permit_determine_incomplete(application=filed, cure_by=date(2026, 3, 20), note="Signatures of all owners",
                                       acting_user=personas["staff"])
    assert [m.to for m in mail.outbox] == [["olivia@example.com"]]
    assert "incomplete" in mail.outbox[0].subject


# --- a permit only on one's own parcel unless staff (issue 14) -------------------------------------------------------

NEW = {"owner_name": "Olivia Owner", "owner_address": "1 Elm St", "site_address": "2 Oak St", "parcel_ids": "01-01-2",
       "description": "Pool and patio", "project_type": "new", "disturbance_sqft": "50000"}


def test_an_owner_cannot_open_a_permit_draft_on_someone_elses_parcel(client_for, personas, town):
    """01-01-2 is Oscar Other's: the draft used to open in his name and show in his account."""
    from stormwater.permits.models import PermitApplication

    owner = client_for(personas["owner"])
    r = owner.post("/permits/new/", NEW)
    assert r.status_code == 200 and "No such parcel of yours: 01-01-2" in r.content.decode()
    r = owner.post("/api/permits/new/", {**NEW, "parcel_ids": ["01-01-1", "01-01-2"], "disturbance_sqft": 50000},
                   content_type="application/json")
    assert r.status_code == 400 and r.json()["error"] == "parcel_ids: no such parcel of yours: 01-01-2"
    assert not PermitApplication.objects.exists()
    with pytest.raises(sv.TransitionError, match="01-01-2"):
        sv.permit_application_start(acting_user=personas["owner"], owner=None, owner_name="x", site_address="x",
                                    description="x", disturbance_sqft=D(50000), parcels=[town["house2"]])
    assert not PermitApplication.objects.exists()


def test_an_owner_opens_a_draft_on_their_own_parcel_and_staff_on_any(client_for, personas, town):
    from stormwater.permits.models import PermitApplication

    r = client_for(personas["owner"]).post("/permits/new/", {**NEW, "parcel_ids": "01-01-1"})
    assert r.status_code == 302
    assert PermitApplication.objects.get().owner.user == personas["owner"]
    r = client_for(personas["staff"]).post("/permits/new/", NEW)  # a walk-in filing for Oscar Other
    assert r.status_code == 302
    walk_in = PermitApplication.objects.get(parcels=town["house2"])
    assert walk_in.owner.user == personas["outsider"]
    assert walk_in.case.number in client_for(personas["outsider"]).get("/permits/").content.decode()
