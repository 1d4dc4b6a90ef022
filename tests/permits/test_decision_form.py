"""Issue 16 "Forms" on the permit decision (§ 380-10 I(1)): a refused decision re-renders with what was
typed and the error at the field; no kind is preselected; conditions are never dropped — a kind that takes
no conditions with conditions typed is refused, saying why (§ 380-10 I(1)(b): conditions belong to an approval
with conditions)."""
import re
from datetime import date

import pytest

from stormwater.cases.services import TransitionError
from stormwater.permits import services as sv


def _kind_options(page):
    m = re.search(r'<select[^>]*name="kind"[^>]*>(.*?)</select>', page, re.S)
    assert m
    return m.group(1)


def test_no_kind_is_preselected(client_for, personas, reviewing):
    page = client_for(personas["director"]).get(f"/permits/{reviewing.case.number}/").content.decode()
    opts = _kind_options(page)
    assert re.search(r'<option value=""', opts) and not re.search(r'<option value="[^"]+"[^>]*selected', opts)


def test_conditions_with_a_plain_approval_are_refused_not_dropped(client_for, personas, reviewing):
    r = client_for(personas["director"]).post(f"/permits/{reviewing.case.number}/decide/", {
        "kind": "approve", "findings": "Meets the standards.", "standards": ["380-11D"],
        "conditions": "Silt fence before clearing\nSweep the road weekly"})
    assert r.status_code == 400
    page = r.content.decode()
    assert 'id="id_decide-conditions_error"' in page and "Approval with conditions" in page
    assert "Sweep the road weekly" in page and "Meets the standards." in page
    assert re.search(r'<option value="approve"[^>]*selected', _kind_options(page))
    reviewing.case.refresh_from_db()
    assert reviewing.case.status == "under_review" and not reviewing.conditions.exists()


def test_the_service_refuses_conditions_on_a_kind_that_takes_none(reviewing, personas, at):
    at(date(2026, 4, 10))
    with pytest.raises(TransitionError, match="conditions") as e:
        sv.permit_decide(application=reviewing, kind="disapprove", findings="TSS short.", standards=["380-11D"],
                         conditions=["Silt fence"], acting_user=personas["director"])
    assert e.value.field == "conditions"


def test_a_refusal_from_the_service_comes_back_at_its_field_with_everything_typed(client_for, personas, reviewing):
    r = client_for(personas["director"]).post(f"/permits/{reviewing.case.number}/decide/", {
        "kind": "approve_conditions", "findings": "Meets the standards.", "standards": ["380-11D", "380-11B"],
        "conditions": "", "order_of_conditions": "DEP 123-456"})
    assert r.status_code == 400
    page = r.content.decode()
    assert 'id="id_decide-conditions_error"' in page and "list its conditions" in page
    assert 'value="DEP 123-456"' in page
    assert re.search(r'value="380-11B"[^>]*checked', page) and re.search(r'value="380-11D"[^>]*checked', page)
    assert 'class="error-summary"' in page


def test_a_missing_kind_is_marked_at_the_kind(client_for, personas, reviewing):
    r = client_for(personas["director"]).post(f"/permits/{reviewing.case.number}/decide/", {
        "kind": "", "findings": "x", "standards": ["380-11D"]})
    assert r.status_code == 400 and 'id="id_decide-kind_error"' in r.content.decode()


def test_a_good_decision_with_its_conditions_goes_through(client_for, personas, reviewing):
    r = client_for(personas["director"]).post(f"/permits/{reviewing.case.number}/decide/", {
        "kind": "approve_conditions", "findings": "Meets the standards.", "standards": ["380-11D"],
        "conditions": "Silt fence before clearing\n\nSweep the road weekly"})
    assert r.status_code == 302
    assert [c.text for c in reviewing.conditions.all()] == ["Silt fence before clearing", "Sweep the road weekly"]


def test_the_decision_previews_as_its_pdf_and_nothing_is_issued(client_for, personas, reviewing):
    import subprocess

    from stormwater.cases.models import CaseDocument

    n = reviewing.case.number
    d = client_for(personas["director"])
    assert f'formaction="/permits/{n}/decide/preview/"' in d.get(f"/permits/{n}/").content.decode()
    docs = CaseDocument.objects.count()
    r = d.post(f"/permits/{n}/decide/preview/", {
        "kind": "approve_conditions", "findings": "Meets the standards.", "standards": ["380-11D"],
        "conditions": "Silt fence before clearing"})
    assert r.status_code == 200 and r["Content-Type"] == "application/pdf"
    text = subprocess.run(["pdftotext", "-", "-"], input=r.content, capture_output=True, check=True).stdout.decode()
    assert "PREVIEW" in text and "Silt fence before clearing" in text
    reviewing.case.refresh_from_db()
    assert reviewing.case.status == "under_review" and CaseDocument.objects.count() == docs
    assert not reviewing.conditions.exists()
