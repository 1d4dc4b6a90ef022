"""Issue 16 "Forms": a refused relief decision re-renders with what was typed and the error at the field
(GOV.UK pattern: error summary, message at the field tied by aria-describedby); no decision is preselected
on a legal act (Ch. 295 Art. IV credits ¶E, billing ¶E: the Director decides in writing)."""
import re
from decimal import Decimal as D

import pytest

from stormwater.relief import services as sv
from stormwater.relief.models import CreditApplication, CreditType

from .conftest import house_bill, pdf_upload


@pytest.fixture
def under_review(client_for, personas, billed, policy):
    bmp = CreditType.objects.get(policy=policy, code="BMP")
    files = {f"doc_{t}": pdf_upload(f"{t}.pdf") for t, _ in bmp.required_documents}
    client_for(personas["owner"]).post("/relief/credits/new/", {"parcel_id": "01-01-1", "credit_code": "BMP",
                                                               "statement": "Rain garden.", **files})
    app = CreditApplication.objects.get()
    assert client_for(personas["staff"]).post(f"/relief/{app.case.number}/act/complete/").status_code == 302
    return app


def _select(page: str, name: str) -> str:
    m = re.search(rf'<select[^>]*name="{name}"[^>]*>(.*?)</select>', page, re.S)
    assert m, f"no select {name}"
    return m.group(1)


def test_a_too_high_percentage_keeps_the_reasons_and_the_decision_and_marks_the_field(client_for, personas,
                                                                                       under_review):
    n = under_review.case.number
    r = client_for(personas["director"]).post(f"/relief/{n}/act/decide_credit/", {
        "decision": "grant_part", "percent": "150", "reasons": "Only the rain garden counts & half the roof."})
    assert r.status_code == 400
    page = r.content.decode()
    assert 'class="error-summary"' in page
    assert "Only the rain garden counts &amp; half the roof." in page          # the reasons typed
    assert re.search(r'<option value="grant_part"[^>]*selected', _select(page, "decision"))
    assert 'value="150"' in page                                                # the percentage typed
    assert re.search(r'aria-describedby="[^"]*id_decide_credit-percent_error', page)
    assert 'id="id_decide_credit-percent_error"' in page and "less than the full credit" in page
    under_review.refresh_from_db()
    assert under_review.decision == "" and under_review.case.status == "under_review"


def test_missing_reasons_on_a_denial_are_marked_at_the_reasons(client_for, personas, under_review):
    n = under_review.case.number
    r = client_for(personas["director"]).post(f"/relief/{n}/act/decide_credit/", {"decision": "deny", "reasons": ""})
    assert r.status_code == 400
    page = r.content.decode()
    assert 'id="id_decide_credit-reasons_error"' in page
    assert re.search(r'<option value="deny"[^>]*selected', _select(page, "decision"))


def test_no_decision_is_preselected_and_none_chosen_is_refused(client_for, personas, under_review):
    n = under_review.case.number
    d = client_for(personas["director"])
    options = _select(d.get(f"/relief/{n}/").content.decode(), "decision")
    assert re.search(r'<option value=""', options) and not re.search(r'<option value="[^"]+"[^>]*selected', options)
    r = d.post(f"/relief/{n}/act/decide_credit/", {"decision": "", "reasons": "x"})
    assert r.status_code == 400 and 'id="id_decide_credit-decision_error"' in r.content.decode()
    under_review.refresh_from_db()
    assert under_review.case.status == "under_review"


def test_the_abatement_decision_keeps_what_was_typed(client_for, personas, billed, at):
    from datetime import date

    from stormwater.receivables.services import payment_post

    bill = house_bill(billed)
    at(date(2026, 9, 20))
    payment_post(account=bill.account, amount=D("53.16"), received_on=date(2026, 9, 20), acting_user=None)
    ab = sv.abatement_apply(bill=bill, grounds=["area"], statement="x", amount_requested=D("5"),
                            disposition="refund", acting_user=personas["owner"])
    d = client_for(personas["director"])
    assert not re.search(r'<option value="[^"]+"[^>]*selected',
                         _select(d.get(f"/relief/{ab.case.number}/").content.decode(), "decision"))
    r = d.post(f"/relief/{ab.case.number}/act/decide_abatement/",
               {"decision": "grant_part", "amount": "abc", "reasons": "Area measured again."})
    assert r.status_code == 400
    page = r.content.decode()
    assert "Area measured again." in page and 'value="abc"' in page
    assert 'id="id_decide_abatement-amount_error"' in page


def test_a_good_decision_still_goes_through(client_for, personas, under_review):
    n = under_review.case.number
    r = client_for(personas["director"]).post(f"/relief/{n}/act/decide_credit/",
                                              {"decision": "grant_part", "percent": "15", "reasons": "Half."})
    assert r.status_code == 302
    under_review.refresh_from_db()
    assert under_review.granted_percent == D("15")
