"""Issue 6 "Done when", through the web pages as each person does it: applicability → draft → filed →
incomplete → complete → consultant selected → appeal (tolls) → fee paid → approval with conditions →
closed, 53G account reconciled and refunded, every notice a PDF."""
import html
import re
import subprocess
from datetime import date
from decimal import Decimal as D

import pytest

from stormwater.permits.models import AccountEntry, PermitApplication

from .conftest import pdf_upload, review_every_item

pytestmark = pytest.mark.django_db


def pdf_text(content: bytes) -> str:
    assert content.startswith(b"%PDF-")
    r = subprocess.run(["pdftotext", "-layout", "-", "-"], input=content, capture_output=True, check=True)
    return re.sub(r"\s+", " ", r.stdout.decode())


def post(client, url, data=None, *, refused: str | None = None):
    """POST, follow the redirect back to the file, and check the message: success, or the refusal expected (the
    file page again, 400, the refusal on the form: issue 16 "Forms")."""
    if refused is not None:
        r = client.post(url, data or {})
        assert r.status_code == 400, r.status_code
        assert refused in html.unescape(r.content.decode())
        return r
    r = client.post(url, data or {}, follow=True)
    assert r.status_code == 200, r.content[:500]
    assert not any("/login/" in u for u, _ in r.redirect_chain), r.redirect_chain
    errors = [str(m) for m in r.context["messages"] if m.level_tag == "error"]
    if refused is None:
        assert errors == []
    else:
        assert any(refused in e for e in errors), errors
    return r


def test_done_when_scenario(client, personas, town, at):
    # 1. The applicant's first question, before signing in.
    at(date(2026, 2, 16))
    r = client.post("/permits/applicability/", {"disturbance": "2", "unit": "acres", "on": "2026-04-01",
                                                "discharges_to_ms4": "on", "exemption": "H",
                                                "c_H_existing_ways_only": "on", "c_H_adds_lane_width": "on"})
    page = r.content.decode()
    assert "A permit is required" in page and "Not exempt under § 380-5 H" in page

    # 2. The owner opens a draft and assembles the package.
    client.force_login(personas["owner"])
    r = client.post("/permits/new/", {
        "owner_name": "Olivia Owner", "owner_address": "1 Elm St\nLongmeadow, MA 01106", "site_address": "1 Elm St",
        "parcel_ids": "01-01-1", "description": "Eight-lot subdivision with a new road", "project_type": "new",
        "disturbance_sqft": "87120", "wetlands_jurisdiction": "on"})
    number = r.url.rstrip("/").split("/")[-1]
    app = PermitApplication.objects.get(case__number=number)
    base = f"/permits/{number}/"
    for tag in ("application_form", "abutter_list", "swmp", "escp"):
        post(client, base + "upload/", {"tag": tag, "file": pdf_upload(f"{tag}.pdf")})
    post(client, base + "abutters/", {"certified_on": "2026-02-13", "abutters":
                                        "Oscar Other\n2 Oak St\nLongmeadow, MA 01106\n\nShops LLC\nPO Box 1\n"
                                        "Springfield, MA 01101"})
    letters = client.get(base + "abutters/letters.pdf").content
    text = pdf_text(letters)
    assert "Oscar Other" in text and "Shops LLC" in text and "Town Clerk" in text and "87,120 ft²" in text
    labels = pdf_text(client.get(base + "abutters/labels.pdf").content)
    assert "2 Oak St" in labels and "PO Box 1" in labels
    post(client, base + "abutters/mailed/", {"mailed_on": "2026-02-16"})
    post(client, base + "upload/", {"tag": "abutter_notice_proof", "file": pdf_upload("green-cards.pdf")})

    # 3. Filing is refused while the package is not complete and the fees are not paid (issue 30, § 380-10 B(1),
    # G(1)): the page said what is missing and the fee due; staff take the fees and the paper copies at the counter,
    # the owner uploads the O&M plan; filed on Monday March 2: the 42-day clock, notices to the Town Clerk and boards.
    at(date(2026, 3, 2))
    client.force_login(personas["owner"])
    before = client.get(base).content.decode()
    assert 'id="before-filing"' in before and "$2,000.00" in before
    post(client, base + "file/", refused="Draft operation and maintenance plan")
    app.case.refresh_from_db()
    assert app.case.status == "draft" and not app.case.clocks.exists()
    staff = client
    staff.force_login(personas["staff"])
    post(staff, base + "fees-paid/", {"paid_on": "2026-03-02", "receipt": "R-100"})
    post(staff, base + "checklist/paper_copies/confirm/", {"note": "3 sets"})
    client.force_login(personas["owner"])
    post(client, base + "upload/", {"tag": "om_plan", "file": pdf_upload("om.pdf")})
    post(client, base + "file/")
    app.case.refresh_from_db()
    assert app.case.status == "filed"
    assert "Mon, Apr 13, 2026" in client.get(base).content.decode()

    # 4. Staff: the O&M plan names no one responsible for maintenance: incomplete, items due March 20.
    at(date(2026, 3, 5))
    client.force_login(personas["staff"])
    post(staff, base + "incomplete/", {"cure_by": "2026-03-20",
                                       "note": "The operation and maintenance plan names no party responsible."})
    app.case.refresh_from_db()
    assert app.case.status == "incomplete"

    # 5. The owner sends the revised O&M plan on March 16; staff find it complete.
    at(date(2026, 3, 16))
    client.force_login(personas["owner"])
    post(client, base + "upload/", {"tag": "om_plan", "file": pdf_upload("om-revised.pdf")})
    post(client, base + "items-received/", {"note": "O&M plan"})
    client.force_login(personas["staff"])
    post(client, base + "complete/")
    app.case.refresh_from_db()
    assert app.case.status == "under_review"

    # 6. The Director selects an outside consultant (notice Tue March 17); the owner appeals on the 19th.
    at(date(2026, 3, 17))
    client.force_login(personas["director"])
    post(client, base + "consultant/", {"name": "Pat Engineer", "firm": "Hydro LLC", "degree": "BSCE",
                                         "years_of_practice": "6", "services": "Technical review of the plan",
                                         "fee": "4000.00", "notice_on": "2026-03-17", "username": "consultant"})
    at(date(2026, 3, 19))
    client.force_login(personas["owner"])
    post(client, base + "consultant/appeal/", {"received_on": "2026-03-19", "ground": "conflict",
                                                 "statement": "The consultant designed the abutting lot."})
    api = client.get(f"/api/permits/{number}/").json()
    clocks = {c["kind"]: c for c in api["clocks"]}
    assert clocks["action"]["due"] is None and clocks["consultant_payment"]["due"] is None  # both stopped

    # 7. The Select Board upholds the selection on March 26; the countdown resumes Fri March 27.
    at(date(2026, 3, 26))
    client.force_login(personas["clerk"])
    post(client, base + "consultant/appeal/decide/", {"decided_on": "2026-03-26", "outcome": "upheld", "note": ""})
    clocks = {c["kind"]: c for c in client.get(f"/api/permits/{number}/").json()["clocks"]}
    # Payment: Mar 18 counted (1 business day), stopped Mar 19–26, 9 more from Mar 27 → Apr 8.
    assert clocks["consultant_payment"]["due"] == "2026-04-08"
    # Action: 42 days + 12 (incomplete Mar 5–16) + 8 (appeal Mar 19–26) = 62 days → Sun May 3 → Mon May 4.
    assert clocks["action"]["due"] == "2026-05-04" and clocks["action"]["tolled_days"] == 20

    # 8. Finance deposits the fee in the special account: the consultant is engaged, review goes on.
    at(date(2026, 3, 30))
    client.force_login(personas["collector"])
    post(client, base + "account/", {"kind": "deposit", "amount": "4000.00", "on": "2026-03-30", "reference": "R-7"})
    app.case.refresh_from_db()
    assert app.case.status == "under_review"
    client.force_login(personas["consultant"])
    assert client.get(base).status_code == 200  # engaged on this file
    post(client, base + "upload/", {"tag": "consultant_report", "file": pdf_upload("review.pdf")})
    client.force_login(personas["director"])
    post(client, base + "account/expenditure/", {"amount": "3150.00", "payee": "Hydro LLC",
                                                   "memo": "Plan review invoice 1", "on": "2026-04-10"})

    # 9. Approval with conditions on April 20, citing the standards; the permit PDF lists the conditions. The
    # reviewer's checklists are reviewed first (issue 30: the one approval gate).
    at(date(2026, 4, 20))
    review_every_item(app, personas["staff"])
    client.force_login(personas["director"])
    post(client, base + "decide/", {"kind": "approve_conditions", "findings": "The plan meets the standards.",
                                      "standards": ["380-11B", "380-11D", "380-13"],
                                      "conditions": "Silt fence along the brook before clearing\n"
                                                    "Infiltration basin tested before paving"})
    app.refresh_from_db()
    app.case.refresh_from_db()
    assert app.case.status == "approved_conditions" and app.issued_on == date(2026, 4, 20)

    # 10. Oversight complete June 1; interest credited; the balance with interest refunded within 30 days.
    at(date(2026, 6, 1))
    client.force_login(personas["collector"])
    post(client, base + "account/", {"kind": "interest", "amount": "6.42", "on": "2026-06-01"})
    client.force_login(personas["director"])
    post(client, base + "close/", {"why": "Certificate of completion issued"})
    clocks = {c["kind"]: c for c in client.get(f"/api/permits/{number}/").json()["clocks"]}
    assert clocks["refund"]["due"] == "2026-07-01"
    at(date(2026, 6, 10))
    client.force_login(personas["collector"])
    post(client, base + "account/", {"kind": "refund", "on": "2026-06-10", "reference": "CHK 5521"})
    refund = AccountEntry.objects.get(application=app, kind="refund")
    assert refund.amount == D("856.42") and refund.payee == "Olivia Owner"
    api = client.get(f"/api/permits/{number}/").json()
    assert api["account"] == {"deposit": "4000.00", "interest": "6.42", "expenditure": "3150.00",
                              "refund": "856.42", "balance": "0.00"}
    assert {c["kind"]: c["standing"] for c in api["clocks"]}["refund"] == "met"

    # Every notice is a PDF in the file, and says what it must.
    docs = {d.tag: d for d in app.case.documents.filter(generated=True)}
    expect = {
        "filing_notice": [number, "1 Elm St", "Olivia Owner", "March 2, 2026", "§ 380-10 F"],
        "incomplete_notice": ["denied as administratively incomplete", "Friday, March 20, 2026", "operation and maintenance"],
        "consultant_notice": ["Pat Engineer", "$4,000.00", "March 23, 2026", "Select Board", "March 31, 2026"],
        "decision": ["Stormwater Management and Land Disturbance Permit", "Silt fence along the brook",
                     "§ 380-11 D", "within two years"],
        "account_report": ["$4,000.00", "$3,150.00", "$6.42", "$856.42", "$0.00"],
    }
    for tag, phrases in expect.items():
        text = pdf_text(docs[tag].file.read())
        for p in phrases:
            assert p in text, (tag, p, text[:600])
    assert app.case.documents.filter(tag="filing_notice").count() == 4  # Clerk, Planning, Building, ConCom
    clerk = app.case.documents.get(tag="filing_notice", title__contains="Town Clerk")
    assert "Notice of receipt" in pdf_text(clerk.file.read())
    concom = app.case.documents.get(tag="filing_notice", title__contains="Conservation Commission")
    assert "Order of Conditions" in pdf_text(concom.file.read())
    # The timeline holds every move with who made it.
    moves = [(e.from_status, e.to_status, e.actor.username) for e in app.case.events.filter(kind="status")]
    assert moves == [("draft", "filed", "owner"), ("filed", "incomplete", "staff"), ("incomplete", "filed", "owner"),
                     ("filed", "under_review", "staff"), ("under_review", "consultant_fee_due", "director"),
                     ("consultant_fee_due", "consultant_appeal", "owner"),
                     ("consultant_appeal", "consultant_fee_due", "clerk"),
                     ("consultant_fee_due", "under_review", "collector"),
                     ("under_review", "approved_conditions", "director"), ("approved_conditions", "closed", "director")]
    # The permit_clocks command lists nothing running for this closed file but the two-year start.
    from io import StringIO

    from django.core.management import call_command
    out = StringIO()
    call_command("permit_clocks", "--json", stdout=out)
    import json
    assert [c["clock"] for c in json.loads(out.getvalue())["clocks"] if c["case"] == number] == ["project_start"]
