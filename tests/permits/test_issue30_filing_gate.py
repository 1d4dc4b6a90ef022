"""Issue 30 "Filing takes an empty package": an applicant filed with most of the package missing and no fee; the
42-day clock started and the notices went out. § 380-10 B(1): the owner files "a completed application package",
(e) "payment of the application and review fees" among its items; § 380-10 G(1): "The DPW shall obtain with each
submission an application and inspection fee"; H(1): the proof of mailing "at time of application submission".
Before filing, the applicant's page shows what is missing and the fee due; filing is refused, naming each missing item
and the unpaid fee, on the page, through the API and in the service, and a refused filing starts no clock and sends
no notice."""
from datetime import date
from decimal import Decimal as D

import pytest
from django.core import mail

from stormwater.cases.services import TransitionError
from stormwater.notices.models import NoticeSent
from stormwater.permits import services as sv
from stormwater.permits.models import NoticeRecipient

from .conftest import complete_package, pay_fees


def _nothing_happened(app):
    app.case.refresh_from_db()
    assert app.case.status == "draft" and app.case.filed_on is None
    assert not app.case.clocks.exists() and not app.filing_notices.exists()
    assert not NoticeSent.objects.exists() and not mail.outbox


@pytest.fixture
def clerk_by_email(db):
    NoticeRecipient.objects.filter(key="town_clerk").update(email="clerk@longmeadow.example")


def test_the_service_refuses_an_empty_package_naming_each_item_and_the_fee(draft, personas, at, clerk_by_email,
                                                                           django_capture_on_commit_callbacks):
    at(date(2026, 3, 2))
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(TransitionError) as e:
        sv.permit_file(application=draft, acting_user=personas["owner"])
    msg = str(e.value)
    for label in ("Completed application form", "List of immediate abutters", "Proof of notification of abutters",
                  "Stormwater management plan", "Erosion and sediment control plan", "operation and maintenance plan",
                  "Three paper copies"):
        assert label in msg, label
    assert "AutoCAD" not in msg  # not applicable: the plans were not drawn in AutoCAD
    assert "$2,000.00" in msg and "not paid" in msg  # 500 + 2 × 250 + 2 × 500 (the demo schedule)
    _nothing_happened(draft)


def test_every_item_but_no_fee_is_refused_and_the_fee_recorded_at_the_counter_lets_it_file(draft, personas, at):
    at(date(2026, 3, 2))
    complete_package(draft, personas["staff"], skip={"fees"})
    with pytest.raises(TransitionError) as e:
        sv.permit_file(application=draft, acting_user=personas["owner"])
    assert "Missing" not in str(e.value) and "$2,000.00" in str(e.value)
    _nothing_happened(draft)
    with pytest.raises(ValueError, match="receipt"):  # the fee item is no bare tick: it is the payment recorded
        sv.checklist_confirm(application=draft, key="fees", acting_user=personas["staff"])
    pay_fees(draft, personas["staff"])
    sv.permit_file(application=draft, acting_user=personas["owner"])
    draft.refresh_from_db()
    assert draft.case.status == "filed" and draft.fees_total == D("2000.00") and draft.fees_paid_on == date(2026, 3, 2)


def test_the_applicant_page_shows_what_is_missing_and_the_fee_due_and_the_page_refuses(client_for, personas, draft,
                                                                                      at):
    at(date(2026, 3, 2))
    c = client_for(personas["owner"])
    page = c.get(f"/permits/{draft.case.number}/").content.decode()
    assert 'id="before-filing"' in page
    before = page[page.index('id="before-filing"'):]
    assert "Stormwater management plan" in before and "$2,000.00" in before and "not paid" in before.lower()
    r = c.post(f"/permits/{draft.case.number}/file/")
    assert r.status_code == 400 and "Stormwater management plan" in r.content.decode()
    assert "$2,000.00" in r.content.decode()
    _nothing_happened(draft)


def test_the_api_refuses_with_the_same_words(client_for, personas, draft, at):
    at(date(2026, 3, 2))
    complete_package(draft, personas["staff"], skip={"swmp", "fees"})
    r = client_for(personas["owner"]).post(f"/api/permits/{draft.case.number}/file/", {},
                                           content_type="application/json")
    assert r.status_code == 400
    err = r.json()["error"]
    assert "Stormwater management plan" in err and "$2,000.00" in err and "Erosion" not in err
    _nothing_happened(draft)
