"""Pages and JSON API of relief: owners reach only their own parcels, bills and cases; each act needs its
role; the work queue sorts by due date and flags missed Town deadlines."""
from datetime import date
from decimal import Decimal as D

import pytest

from stormwater.receivables.services import payment_post
from stormwater.relief import services as sv
from stormwater.relief.models import Abatement, CreditApplication, CreditType
from stormwater.utility.models import Bill

from .conftest import house_bill, pdf_upload


@pytest.fixture
def paid(billed, at):
    bill = house_bill(billed)
    at(date(2026, 9, 20))
    payment_post(account=bill.account, amount=D("53.16"), received_on=date(2026, 9, 20), acting_user=None)
    return bill


def test_an_owner_applies_for_an_abatement_of_their_own_paid_bill_on_the_page(client_for, personas, paid):
    c = client_for(personas["owner"])
    page = c.get("/relief/abatements/new/").content.decode()
    assert paid.number in page and "Tue, Oct 13, 2026" in page  # the last day to apply, rolled
    other = Bill.objects.get(parcel__parcel_id="01-01-2")
    assert other.number not in page
    r = c.post("/relief/abatements/new/", {"bill": paid.number, "grounds": ["area"], "statement": "Shed removed.",
                                           "amount": "26.58", "disposition": "refund",
                                           "evidence": pdf_upload("photo.pdf")})
    ab = Abatement.objects.get()
    assert r.status_code == 302 and r.url == f"/relief/{ab.case.number}/"
    assert ab.case.documents.filter(tag="evidence").exists()
    page = c.get(r.url).content.decode()
    assert "DPW written decision on the abatement" in page and "Thu, Nov 19, 2026" in page
    # Another owner's bill: the form refuses it as not theirs.
    r = c.post("/relief/abatements/new/", {"bill": other.number, "grounds": ["area"], "statement": "x",
                                           "amount": "1", "disposition": "refund"})
    assert r.status_code == 200 and Abatement.objects.count() == 1


def test_a_late_filing_on_the_page_names_the_due_date(client_for, personas, paid, at):
    at(date(2026, 10, 14))
    r = client_for(personas["owner"]).post("/relief/abatements/new/", {
        "bill": paid.number, "grounds": ["area"], "statement": "x", "amount": "5", "disposition": "refund"})
    assert r.status_code == 200 and "the last day was 2026-10-13" in r.content.decode()


def test_owners_reach_only_their_own_cases(client_for, personas, paid):
    ab = sv.abatement_apply(bill=paid, grounds=["area"], statement="x", amount_requested=D("5"), disposition="refund",
                            acting_user=personas["owner"])
    n = ab.case.number
    doc = ab.case.documents.first()
    out = client_for(personas["outsider"])
    for url in (f"/relief/{n}/", f"/relief/{n}/documents/{doc.pk}/", f"/api/relief/{n}/"):
        assert out.get(url).status_code == 404
    assert out.post(f"/relief/{n}/act/withdraw/").status_code == 404
    assert n not in out.get("/relief/").content.decode()
    assert out.get("/api/relief/").json()["cases"] == []
    own = client_for(personas["owner"])
    assert own.get(f"/relief/{n}/").status_code == 200
    assert own.get(f"/relief/{n}/documents/{doc.pk}/")["Content-Type"] == "application/pdf"


@pytest.mark.parametrize("role,status", [("owner", 403), ("staff", 403), ("clerk", 403), ("collector", 403),
                                         ("director", 302)])
def test_only_the_director_decides_an_abatement(client_for, personas, paid, role, status):
    ab = sv.abatement_apply(bill=paid, grounds=["area"], statement="x", amount_requested=D("5"), disposition="refund",
                            acting_user=personas["owner"])
    r = client_for(personas[role]).post(f"/relief/{ab.case.number}/act/decide_abatement/",
                                        {"decision": "grant", "reasons": ""})
    assert r.status_code == status
    ab.case.refresh_from_db()
    assert (ab.case.status == "granted") == (status == 302)


def test_the_api_answers_403_for_an_act_the_role_may_not_do_and_400_for_a_refusal(client_for, personas, paid, at):
    ab = sv.abatement_apply(bill=paid, grounds=["area"], statement="x", amount_requested=D("5"), disposition="refund",
                            acting_user=personas["owner"])
    n = ab.case.number
    r = client_for(personas["owner"]).post(f"/api/relief/{n}/decide_abatement", {"decision": "grant"},
                                           content_type="application/json")
    assert r.status_code == 403
    d = client_for(personas["director"])
    r = d.post(f"/api/relief/{n}/decide_abatement", {"decision": "deny", "reasons": ""},
               content_type="application/json")
    assert r.status_code == 400 and "reasons" in r.json()["error"]
    r = d.post(f"/api/relief/{n}/decide_abatement", {"decision": "deny", "reasons": "No error shown."},
               content_type="application/json")
    assert r.status_code == 200 and r.json()["status"] == "denied"
    due = next(c for c in r.json()["clocks"] if c["kind"] == "appeal_filing")
    assert due["due"] == "2026-10-20" and due["who_acts"] == "owner"
    at(date(2026, 10, 21))
    o = client_for(personas["owner"])
    r = o.post(f"/api/relief/{n}/appeal", {"grounds": "x"}, content_type="application/json")
    assert r.status_code == 400 and "the last day was 2026-10-20" in r.json()["error"]


def test_api_abatement_and_credit_applications_check_ownership(client_for, personas, paid, policy):
    o = client_for(personas["owner"])
    other = Bill.objects.get(parcel__parcel_id="01-01-2")
    r = o.post("/api/relief/abatements", {"bill": other.number, "grounds": ["area"], "statement": "x", "amount": "1"},
               content_type="application/json")
    assert r.status_code == 404
    r = o.post("/api/relief/abatements", {"bill": paid.number, "grounds": ["area"], "statement": "x", "amount": "1",
                                          "disposition": "credit"}, content_type="application/json")
    assert r.status_code == 201 and r.json()["disposition"] == "credit"
    r = o.post("/api/relief/credits", {"parcel_id": "02-01-1", "credit": "BMP", "statement": "x"},
               content_type="application/json")
    assert r.status_code == 404
    r = o.post("/api/relief/credits", {"parcel_id": "01-01-1", "credit": "BMP", "statement": "Rain garden."},
               content_type="application/json")
    assert r.status_code == 201 and r.json()["credit"] == "BMP" and r.json()["status"] == "filed"
    assert client_for(personas["owner"]).get("/api/relief/queue").status_code == 403


def test_the_credit_flow_on_the_pages(client_for, personas, billed, policy, at):
    o = client_for(personas["owner"])
    page = o.get("/relief/credits/new/").content.decode()
    assert "01-01-1" in page and "02-01-1" not in page
    bmp = CreditType.objects.get(policy=policy, code="BMP")
    files = {f"doc_{t}": pdf_upload(f"{t}.pdf") for t, _ in bmp.required_documents}
    r = o.post("/relief/credits/new/", {"parcel_id": "01-01-1", "credit_code": "BMP", "statement": "Rain garden.",
                                        **files})
    app = CreditApplication.objects.get()
    assert r.status_code == 302 and app.case.documents.filter(generated=False).count() == 3
    n = app.case.number
    assert client_for(personas["staff"]).post(f"/relief/{n}/act/complete/").status_code == 302
    r = client_for(personas["director"]).post(f"/relief/{n}/act/decide_credit/", {"decision": "grant_part",
                                                                                  "percent": "15", "reasons": "Half."})
    app.refresh_from_db()
    assert app.granted_percent == D("15")
    page = client_for(personas["owner"]).get(f"/relief/{n}/").content.decode()
    assert "Granted in part" in page and "Appeal to the Select Board" in page


def test_the_work_queue_is_sorted_by_due_date_and_flags_missed_town_deadlines(client_for, personas, paid, policy, at):
    ab = sv.abatement_apply(bill=paid, grounds=["area"], statement="x", amount_requested=D("5"), disposition="refund",
                            acting_user=personas["owner"])  # decision due Nov 19
    at(date(2026, 10, 1))
    bmp = CreditType.objects.get(policy=policy, code="BMP")
    app = sv.credit_apply(parcel=paid.parcel, credit_type=bmp, statement="x", acting_user=personas["owner"],
                          uploads=[(t, pdf_upload()) for t, _ in bmp.required_documents])
    sv.credit_determine_complete(application=app, acting_user=personas["staff"])  # due Fri Oct 31 → Mon Nov 2
    at(date(2026, 11, 3))
    staff = client_for(personas["staff"])
    q = staff.get("/api/relief/queue").json()["queue"]
    assert [(x["case"], x["kind"], x["missed"]) for x in q] == [(app.case.number, "credit_decision", True),
                                                              (ab.case.number, "abatement_decision", False)]
    assert q[0]["days_left"] == -1 and q[1]["days_left"] == 16
    page = staff.get("/relief/").content.decode()
    assert "1 Town deadline missed" in page and "MISSED" in page
    assert page.index(app.case.number) < page.index(ab.case.number)


@pytest.mark.parametrize("role,url,status", [
    ("outsider", "/relief/", 200), ("owner", "/relief/credits/new/", 200), ("inspector", "/relief/credits/new/", 403),
    ("consultant", "/relief/", 200), ("assessor", "/relief/abatements/new/", 403), ("staff", "/relief/", 200),
    ("clerk", "/relief/policy/", 200), ("owner", "/relief/lien-abatements/new/", 200),
])
def test_role_matrix(client_for, personas, billed, role, url, status):
    assert client_for(personas[role]).get(url).status_code == status


def test_the_policy_page_shows_the_demo_label_and_only_the_policy_role_loads_it(client_for, personas, db):
    assert client_for(personas["owner"]).post("/relief/policy/demo/").status_code == 403
    r = client_for(personas["clerk"]).post("/relief/policy/demo/", {"effective_from": "2026-07-01"})
    assert r.status_code == 302
    page = client_for(personas["owner"]).get("/relief/policy/").content.decode()
    assert "Demo values" in page and "Senior owner-occupant" in page


def test_the_relief_clocks_command_lists_the_queue_and_flags_missed_deadlines(personas, paid, at):
    import json
    from io import StringIO

    from django.core.management import call_command

    ab = sv.abatement_apply(bill=paid, grounds=["area"], statement="x", amount_requested=D("5"), disposition="refund",
                            acting_user=personas["owner"])
    out = StringIO()
    call_command("relief_clocks", "--as-of", "2026-11-20", "--missed", "--json", stdout=out)
    rows = json.loads(out.getvalue())["clocks"]
    assert [(r["case"], r["clock"], r["due"], r["missed"]) for r in rows] == [
        (ab.case.number, "abatement_decision", "2026-11-19", True)]
    out = StringIO()
    call_command("relief_clocks", "--as-of", "2026-11-19", stdout=out)
    assert ab.case.number in out.getvalue() and "due today" in out.getvalue()


def test_a_closed_owner_window_leaves_the_queue_but_a_lapsed_recertification_stays(personas, paid, policy, at):
    from stormwater.relief.selectors import work_queue

    ab = sv.abatement_apply(bill=paid, grounds=["area"], statement="x", amount_requested=D("5"), disposition="refund",
                            acting_user=personas["owner"])
    sv.abatement_decide(abatement=ab, decision="deny", reasons="No.", acting_user=personas["director"])
    bmp = CreditType.objects.get(policy=policy, code="BMP")
    app = sv.credit_apply(parcel=paid.parcel, credit_type=bmp, statement="x", acting_user=personas["owner"],
                          uploads=[(t, pdf_upload()) for t, _ in bmp.required_documents])
    sv.credit_determine_complete(application=app, acting_user=personas["staff"])
    sv.credit_decide(application=app, decision="grant", reasons="", acting_user=personas["director"])
    kinds = lambda day: [(r.case.number, r.view.clock.kind, r.lapsed) for r in work_queue(today=day)]  # noqa: E731
    assert kinds(date(2026, 10, 20)) == [(ab.case.number, "appeal_filing", False),
                                         (app.case.number, "recertification", False)]
    assert kinds(date(2029, 9, 21)) == [(app.case.number, "recertification", True)]  # due Sep 20, 2029


def test_the_queue_page_does_not_query_per_case(client_for, personas, billed, policy, at):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    bmp = CreditType.objects.get(policy=policy, code="BMP")
    staff = client_for(personas["staff"])

    def apply(parcel):
        app = sv.credit_apply(parcel=parcel, credit_type=bmp, statement="x", acting_user=personas["staff"],
                              uploads=[(t, pdf_upload()) for t, _ in bmp.required_documents])
        sv.credit_determine_complete(application=app, acting_user=personas["staff"])

    apply(billed["house"])
    with CaptureQueriesContext(connection) as one:
        staff.get("/relief/")
    for p in ("shops", "apartments", "condo", "house2"):
        apply(billed[p])
    with CaptureQueriesContext(connection) as five:
        assert staff.get("/relief/").status_code == 200
    assert len(five) == len(one)


def test_the_case_page_shows_the_last_day_to_appeal_then_that_it_ended(client_for, personas, paid, at):
    ab = sv.abatement_apply(bill=paid, grounds=["area"], statement="x", amount_requested=D("5"), disposition="refund",
                            acting_user=personas["owner"])
    at(date(2026, 10, 15))
    sv.abatement_decide(abatement=ab, decision="deny", reasons="No.", acting_user=personas["director"])
    at(date(2026, 11, 16))
    o = client_for(personas["owner"])
    page = o.get(f"/relief/{ab.case.number}/").content.decode()
    assert "by Mon, Nov 16, 2026" in page and "File the appeal" in page
    at(date(2026, 11, 17))
    page = client_for(personas["owner"]).get(f"/relief/{ab.case.number}/").content.decode()
    assert "ended on Mon, Nov 16, 2026" in page and "File the appeal" not in page
