"""Issue 10 "Done when", through the web pages as each person does it: a filed application → the
reviewer takes it through every checklist → two deficiencies raised as one information request → the
applicant's response clears them → the Director approves with conditions, and the review summary (page
and PDF) lists every item with its paragraph."""
from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from stormwater.permits.models import PermitApplication
from stormwater.workbench import catalog

from .conftest import pdf_text

pytestmark = pytest.mark.django_db
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

A = "380-12 A(3)(c)[6]"
B = "380-12 A(3)(g)[9]"
NA = {"380-12 A(3)(c)[5]": "no FEMA flood zone on the site (FIRM 25013C0376E)",
      "380-12 A(3)(g)[16]": "the Director did not deem a downstream analysis necessary",
      catalog.SWPPP_PARA: "the plan of § 380-13 A(2) (a)–(q) is submitted"}
LID_NA = "380-11 B(4)(b)[15][f]"


def post(client, url, data=None, *, refused: str | None = None):
    r = client.post(url, data or {}, follow=True)
    assert r.status_code == 200, r.content[:500]
    errors = [str(m) for m in r.context["messages"] if m.level_tag == "error"]
    assert errors == [] if refused is None else any(refused in e for e in errors), errors
    return r


def squash(s: str) -> str:
    return re.sub(r"\s+", "", s)


def test_done_when(client, personas, filed, at):
    app: PermitApplication = filed
    n = app.case.number
    base, wbase = f"/permits/{n}/", f"/permits/{n}/workbench/"
    swmp = app.case.documents.get(tag="swmp")

    # Staff find the filed application complete: review begins.
    at(date(2026, 3, 6))
    client.force_login(personas["staff"])
    post(client, base + "complete/")

    # The reviewer takes it through every checklist, one page each.
    at(date(2026, 3, 9))
    client.force_login(personas["staff"])  # three days later: the idle staff session has ended (docs/accounts.md)
    for cl in catalog.CHECKLISTS:
        page = client.get(wbase + f"{cl.key}/")
        assert page.status_code == 200 and cl.citation in page.content.decode()
        data = {}
        for e in catalog.entries_of(cl.key):
            if not e.is_item:
                continue
            p = e.para
            data[f"f-{p}"], data[f"doc-{p}"], data[f"page-{p}"] = "provided", str(swmp.pk), "C-1"
            if p == A:
                data[f"f-{p}"], data[f"comment-{p}"] = "deficient", "no groundwater elevation at basin 2"
            elif p == B:
                data[f"f-{p}"] = "not_provided"
            elif p in NA:
                data[f"f-{p}"], data[f"reason-{p}"] = "not_applicable", NA[p]
            elif p == LID_NA:
                data[f"f-{p}"], data[f"reason-{p}"] = "not_applicable", "steel deck roofs"
                data[f"mitigation-{p}"] = "roof leaders disconnected to a rain garden"
            elif p == "380-11 C(3)(f)":
                data[f"condition-{p}"] = "Inspect controls weekly and within 24 hours after 0.25 in. of rain."
        post(client, wbase + f"{cl.key}/record/", data)
    home = client.get(wbase).content.decode()
    assert 'id="g-not-reviewed">0 of' in home and 'id="g-open">2' in home
    assert f'value="{A}"' in home and f'value="{B}"' in home

    # Two deficiencies raised as one information request, in one step.
    post(client, wbase + "raise/", {"item": [A, B]})
    app.case.refresh_from_db()
    assert app.case.status == "info_requested" and app.info_requests.count() == 1
    req = app.info_requests.get()
    assert f"§ {A}" in req.items and f"§ {B}" in req.items

    # The applicant reads their file's checklist (read-only) and responds.
    at(date(2026, 3, 16))
    client.force_login(personas["owner"])
    page = client.get(wbase + "swmp/").content.decode()
    assert "Requested Mar 9, 2026" in page and "record/" not in page
    post(client, base + "info-response/", {"response": "Sheets C-3A (groundwater) and D-2 (culverts) attached"})

    # Cleared by the response: nothing open; the clock runs again.
    client.force_login(personas["staff"])
    home = client.get(wbase).content.decode()
    assert 'id="g-open">0' in home and 'id="g-requests">0' in home and "Cleared by the response of Mar 16, 2026" in \
        client.get(wbase + "swmp/").content.decode()

    # The Director approves with conditions; the review summary goes with the decision.
    at(date(2026, 3, 20))
    client.force_login(personas["director"])
    home = client.get(wbase).content.decode()
    assert "Inspect controls weekly" in home  # conditions pre-filled from the findings
    post(client, wbase + "decide/", {
        "kind": "approve_conditions", "findings": "The plan meets the § 380-11 standards with the conditions below.",
        "standards": ["380-11B", "380-11C", "380-12", "380-13"],
        "conditions": "Inspect controls weekly and within 24 hours after 0.25 in. of rain.\n"
                      "Submit the groundwater monitoring at basin 2 before excavation."})
    app.case.refresh_from_db()
    assert app.case.status == "approved_conditions" and app.conditions.count() == 2
    kept = app.case.documents.get(tag="review_summary")
    assert kept.content_type == "application/pdf"

    summary = client.get(wbase + "summary/").content.decode()
    pdf = client.get(wbase + "summary.pdf")
    assert pdf["Content-Type"] == "application/pdf"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "workbench-review-summary.pdf").write_bytes(pdf.content)  # for a look with pdftoppm
    for text in (summary, pdf_text(pdf.content), pdf_text(kept.file.read())):
        flat = squash(text.replace("&#x27;", "'"))
        missing = [e.para for e in catalog.ENTRIES if squash(f"§ {e.para}") not in flat]
        assert missing == []
        assert squash("Approval with conditions") in flat and squash("Submit the groundwater monitoring") in flat
        assert squash("Cleared by the response of Mar 16, 2026") in flat
        assert squash("roof leaders disconnected to a rain garden") in flat
