"""Issue 16 "Forms" (done when: "a refused staff form keeps every typed value and marks the field"): the relief case
page's hand-written forms (the acts of ``relief.actions`` and the upload), and the policy page's, refused by their
service answer with the page again (400): nothing recorded, every value as typed, the refused input marked and
described, the summary linking to it (``web.postdata.refused``)."""
from datetime import date, datetime
from decimal import Decimal as D
from zoneinfo import ZoneInfo

import pytest

from refusedforms import assert_refused
from stormwater.cases.models import CaseDocument, CaseEvent
from stormwater.receivables.services import payment_post
from stormwater.relief import services as sv
from stormwater.relief.models import CreditPolicy, CreditType

from .conftest import house_bill, pdf_upload

ET = ZoneInfo("America/New_York")


def _credit(town, policy, p, at):
    at(date(2026, 9, 21))
    bmp = CreditType.objects.get(policy=policy, code="BMP")
    return sv.credit_apply(parcel=town["house"], credit_type=bmp, statement="Rain garden.", acting_user=p["owner"],
                           uploads=[(t, pdf_upload(f"{t}.pdf")) for t, _ in bmp.required_documents])


def _granted(town, policy, p, at):
    app = _credit(town, policy, p, at)
    sv.credit_determine_complete(application=app, acting_user=p["staff"])
    sv.credit_decide(application=app, decision="grant", reasons="", acting_user=p["director"])
    return app


def _denied(town, policy, p, at):
    bill = house_bill(town)
    at(date(2026, 9, 20))
    payment_post(account=bill.account, amount=D("53.16"), received_on=date(2026, 9, 20), acting_user=None)
    at(date(2026, 10, 1))
    ab = sv.abatement_apply(bill=bill, grounds=["class"], statement="One dwelling.", amount_requested=D("26.58"),
                            disposition="refund", acting_user=p["owner"])
    at(date(2026, 10, 15))
    sv.abatement_decide(abatement=ab, decision="deny", reasons="Two units.", acting_user=p["director"])
    return ab


def _appeal(town, policy, p, at):
    ab = _denied(town, policy, p, at)
    at(date(2026, 10, 20))
    ap = sv.appeal_file(decided_case=ab.case, grounds="One unit.", acting_user=p["owner"])
    sv.appeal_transmit_record(appeal=ap, acting_user=p["staff"])
    return ap


def _hearing(town, policy, p, at):
    ap = _appeal(town, policy, p, at)
    at(date(2026, 11, 2))
    sv.appeal_schedule_hearing(appeal=ap, hearing_at=datetime(2027, 1, 12, 19, 0, tzinfo=ET), place="Town Hall",
                               acting_user=p["clerk"])
    at(date(2027, 1, 12))
    return ap


def _heard(town, policy, p, at):
    ap = _hearing(town, policy, p, at)
    sv.appeal_close_hearing(appeal=ap, acting_user=p["clerk"])
    at(date(2027, 1, 20))
    return ap


# name: (case made by, who, act, posted, refused input)
CASES = {
    "incomplete": (_credit, "staff", "incomplete", {"missing": "  "}, "missing"),
    "revoke": (_granted, "director", "revoke", {"lapsed": "1", "reason": " "}, "reason"),
    "appeal": (_denied, "owner", "appeal", {"grounds": "   "}, "grounds"),
    "schedule": (_appeal, "clerk", "schedule", {"hearing_at": "2027-06-01T19:00", "place": "Town Hall, room 2"},
                 "hearing_at"),
    "close_hearing": (_hearing, "clerk", "close_hearing", {"on": "2027-13-01"}, "on"),
    "decide_appeal": (_heard, "clerk", "decide_appeal",
                      {"outcome": "reverse", "amount": "99.00", "findings": "One dwelling unit."}, "amount"),
}


def _recorded():
    return CaseEvent.objects.count(), CaseDocument.objects.count()


@pytest.mark.parametrize("name", CASES)
def test_refused_act_keeps_every_value_and_marks_the_field(name, billed, policy, personas, at, client_for):
    made, who, action, posted, refused = CASES[name]
    case = made(billed, policy, personas, at).case
    url = f"/relief/{case.number}/act/{action}/"
    before = _recorded()
    r = client_for(personas[who]).post(url, posted)
    assert_refused(r, url, posted, refused)
    assert _recorded() == before  # nothing recorded


def test_upload_without_a_file_says_so_at_the_file_input(billed, policy, personas, at, client_for):
    case = _denied(billed, policy, personas, at).case
    url = f"/relief/{case.number}/upload/"
    before = _recorded()
    r = client_for(personas["owner"]).post(url, {"tag": "evidence"})
    assert_refused(r, url, {}, "file")
    assert "Choose a file to upload." in r.content.decode() and _recorded() == before


def test_the_demo_policy_with_a_date_that_is_not_one_keeps_it(personas, client_for, db):
    n = CreditPolicy.objects.count()
    r = client_for(personas["clerk"]).post("/relief/policy/demo/", {"effective_from": "2026-02-30"})
    assert_refused(r, "/relief/policy/demo/", {"effective_from": "2026-02-30"}, "effective_from")
    assert CreditPolicy.objects.count() == n


@pytest.mark.parametrize("keep", [False, True])
def test_an_owners_photo_loses_its_gps_position_unless_the_owner_keeps_it(billed, policy, personas, at, client_for,
                                                                         keep):
    """Issue 27: owner evidence photos kept their GPS position and were served back byte for byte; the case page's
    upload strips it unless "Keep the photo's GPS position" is ticked."""
    import io

    from django.core.files.uploadedfile import SimpleUploadedFile
    from PIL import Image

    case = _denied(billed, policy, personas, at).case
    im, exif, out = Image.new("RGB", (40, 30), (20, 120, 200)), Image.Exif(), io.BytesIO()
    exif[0x8825] = {1: "N", 2: (42.0, 3.0, 10.0), 3: "W", 4: (72.0, 35.0, 5.0)}
    im.save(out, "JPEG", exif=exif)
    data = out.getvalue()
    post = {"tag": "evidence", "file": SimpleUploadedFile("yard.jpg", data)} | ({"keep_location": "on"} if keep else {})
    r = client_for(personas["owner"]).post(f"/relief/{case.number}/upload/", post)
    assert r.status_code == 302
    stored = CaseDocument.objects.filter(case=case, original_name="yard.jpg").get().file.read()
    assert (0x8825 in Image.open(io.BytesIO(stored)).getexif()) is keep
    assert (stored == data) is keep
