"""Issue 18, the permit's approved plan sheets: the Director fills them from the plan set on the decision form (1366
and 390 px, axe-core on every shot), edits a line and records the decision; the permit lists what was recorded."""
import re
import sys
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest



pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def under_review(town, personas, settings, tmp_path, at):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from stormwater.parcels.models import Owner
    from stormwater.permits import services as sv
    from stormwater.permits.checklist import ITEMS
    from stormwater.review.sheets import plan_sheets_upload
    from stormwater.rules.applicability import determine

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "review"))
    from review_fixtures import plan_set_pdf

    settings.MEDIA_ROOT = tmp_path / "media"
    pdf = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
    at(date(2026, 3, 2))
    owner = Owner.objects.get(user=personas["owner"])
    app = sv.permit_application_start(
        acting_user=personas["owner"], owner=owner, owner_name=owner.name, owner_address=owner.mailing_address,
        site_address="1 Elm St", parcels=[town["house"]], description="Retail pad with parking",
        disturbance_sqft=Decimal(217800), determination=determine(disturbance_sqft=Decimal(217800), on=date(2026, 3, 2)))
    for item in ITEMS:
        if not app.checklist.get(key=item.key).done:
            if item.by_upload:
                sv.permit_document_upload(application=app, upload=SimpleUploadedFile(f"{item.key}.pdf", pdf,
                                                                                     content_type="application/pdf"),
                                          tag=item.key, acting_user=personas["staff"])
            elif item.key == "fees":  # paid at the counter before filing (issue 30)
                sv.permit_fees_paid(application=app, paid_on=date(2026, 3, 2), receipt="R-1",
                                    acting_user=personas["staff"])
            else:
                sv.checklist_confirm(application=app, key=item.key, acting_user=personas["staff"])
    sv.permit_file(application=app, acting_user=personas["owner"])
    sv.permit_determine_complete(application=app, acting_user=personas["staff"])
    plan_sheets_upload(case=app.case, upload=SimpleUploadedFile("plans.pdf", plan_set_pdf(revision="Rev. 2"),
                                                                content_type="application/pdf"),
                       acting_user=personas["owner"])
    from stormwater.workbench import catalog
    from stormwater.workbench.services import item_findings_record

    # the reviewer's workbench: every item found provided, so the approval passes its gate (issue 30)
    item_findings_record(application=app, acting_user=personas["staff"],
                         findings=[{"para": e.para, "finding": "provided"} for e in catalog.ITEMS])
    at(date(2026, 3, 20))
    return app


def test_the_director_fills_the_sheets_from_the_plan_set_and_records(page, live_server, under_review, shot, login):
    from stormwater.permits.models import PermitApplication

    number = under_review.case.number
    login("director")
    for width in (390, 1366):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/permits/{number}/")
        page.get_by_role("link", name="Fill the approved plan sheets from the plan set").click()
        field = page.get_by_label(re.compile(r"^Approved plan sheets"))
        assert field.input_value().splitlines() == ["C-1; Site plan; 2", "C-2; Grading and drainage; 2",
                                                    "C-3; Details; 2"]
        note = page.locator("#sheets-proposal")
        assert "filled from plan set v1 (PDF, 3 pages)" in note.inner_text()
        assert note.evaluate("e => e.getBoundingClientRect().right") <= width
        assert field.evaluate("e => e.getBoundingClientRect().right") <= width
        shot(f"permit-sheets-filled-{width}")
        page.locator("details:not(.fold)").filter(has=page.locator("#decide")).screenshot(
            path=str(Path(__file__).resolve().parents[2] / "test-artifacts" / "screens" / f"permit-sheets-decide-{width}.png"))
    field.fill(field.input_value().replace("C-3; Details; 2", "C-3; Details and sections; 2; 2026-03-01"))
    page.locator("#decide select[name=kind]").select_option("approve")
    page.locator("#decide textarea[name=findings]").fill("Meets the standards.")
    page.locator("#decide").get_by_role("checkbox").first.check()
    page.get_by_role("button", name="Record the decision").click()
    page.get_by_text("Decision recorded; the decision document is in the file.").wait_for()
    app = PermitApplication.objects.get(pk=under_review.pk)
    assert [(s["number"], s["title"], s["revision"], s["date"]) for s in app.approved_sheets] == [
        ("C-1", "Site plan", "2", ""), ("C-2", "Grading and drainage", "2", ""),
        ("C-3", "Details and sections", "2", "2026-03-01")]
