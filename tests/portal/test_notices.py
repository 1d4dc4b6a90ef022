"""stormwater.notices: a record of every emailed notice, written with the state change, sent after commit."""
from __future__ import annotations

import hashlib
from datetime import date

import pytest
from django.core import mail

from stormwater.notices.models import NoticeSent
from stormwater.notices.services import notice_email

pytestmark = pytest.mark.django_db


def test_a_notice_is_recorded_then_sent_after_commit(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        rec = notice_email(to="a@example.org", subject="Decision", body="b", kind="decision",
                           attachment=("d.pdf", b"%PDF-1.4", "application/pdf"))
        assert rec.status == "queued" and mail.outbox == []
    rec.refresh_from_db()
    assert rec.status == "sent" and rec.sent_at is not None
    assert rec.attachment_sha256 == hashlib.sha256(b"%PDF-1.4").hexdigest()
    assert mail.outbox[0].to == ["a@example.org"] and mail.outbox[0].attachments[0][0] == "d.pdf"


def test_no_address_no_notice():
    assert notice_email(to="", subject="s", body="b", kind="k") is None
    assert NoticeSent.objects.count() == 0


def test_a_rolled_back_transaction_sends_nothing(django_capture_on_commit_callbacks):
    from django.db import transaction

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        try:
            with transaction.atomic():
                notice_email(to="a@example.org", subject="s", body="b", kind="k")
                raise RuntimeError("the decision failed")
        except RuntimeError:
            pass
    assert callbacks == [] and mail.outbox == [] and NoticeSent.objects.count() == 0


def test_a_mail_failure_is_recorded_not_raised(settings, django_capture_on_commit_callbacks):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", 1  # nothing listens there
    with django_capture_on_commit_callbacks(execute=True):
        rec = notice_email(to="a@example.org", subject="s", body="b", kind="k")
    rec.refresh_from_db()
    assert rec.status == "failed" and rec.error


def test_permit_letters_to_the_applicant_are_recorded_with_their_case(town, personas, django_capture_on_commit_callbacks):
    from decimal import Decimal as D

    from stormwater.parcels.models import Owner
    from stormwater.permits.services import permit_application_start, permit_file, permit_request_information
    from stormwater.permits.services import (checklist_confirm, permit_determine_complete, permit_document_upload,
                                             permit_fees_paid)
    from stormwater.permits.checklist import ITEMS
    from stormwater.rules.applicability import determine

    from .conftest import pdf_upload

    personas["owner"].email = "olivia@example.org"
    personas["owner"].save()
    owner = Owner.objects.get(user=personas["owner"])
    app = permit_application_start(
        acting_user=personas["owner"], owner=owner, owner_name=owner.name, owner_address=owner.mailing_address,
        site_address="1 Elm St", parcels=[town["house"]], description="Subdivision", disturbance_sqft=D(87120),
        determination=determine(disturbance_sqft=D(87120), on=date.today()))
    for item in ITEMS:
        if item.by_upload:
            permit_document_upload(application=app, upload=pdf_upload(f"{item.key}.pdf"), tag=item.key,
                                   acting_user=personas["owner"])
        elif item.key == "fees":  # paid at the counter before filing (issue 30)
            permit_fees_paid(application=app, paid_on=date.today(), receipt="R-1", acting_user=personas["staff"])
        else:
            checklist_confirm(application=app, key=item.key, acting_user=personas["staff"], note="t")
    permit_file(application=app, acting_user=personas["owner"])
    permit_determine_complete(application=app, acting_user=personas["staff"])
    with django_capture_on_commit_callbacks(execute=True):
        permit_request_information(application=app, items="Test pits", acting_user=personas["staff"])
    rec = NoticeSent.objects.get(case=app.case, kind="info_request")
    assert rec.to == "olivia@example.org" and rec.status == "sent" and rec.attachment_name.endswith(".pdf")
    assert any(m.to == ["olivia@example.org"] for m in mail.outbox)


def test_relief_letters_are_recorded_with_their_case(billed, personas, at, django_capture_on_commit_callbacks):
    from decimal import Decimal as D

    from stormwater.parcels.models import Owner
    from stormwater.receivables.services import payment_post
    from stormwater.relief.services import abatement_apply
    from stormwater.utility.models import Bill

    Owner.objects.filter(user=personas["owner"]).update(email="olivia@example.org")
    bill = Bill.objects.get(parcel=billed["house"])
    at(date(2026, 9, 20))
    payment_post(account=bill.account, amount=D("53.16"), received_on=date(2026, 9, 20), acting_user=None)
    with django_capture_on_commit_callbacks(execute=True):
        ab = abatement_apply(bill=bill, grounds=["area"], statement="The shed is gone.", amount_requested=D("10.00"),
                             disposition="refund", acting_user=personas["owner"])
    sent = NoticeSent.objects.filter(case=ab.case)
    assert sent.exists() and all(n.status == "sent" and n.to == "olivia@example.org" for n in sent)
