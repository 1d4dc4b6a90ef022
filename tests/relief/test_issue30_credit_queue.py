"""Issue 30: a resident's new credit application reaches the relief staff's work queue (completeness to be
determined, Ch. 295 Art. IV credits ¶D) and leaves it once determined; the resident sees it as the Town's to do."""
from __future__ import annotations

from datetime import date

from stormwater.relief import services as sv
from stormwater.relief.models import CreditType
from stormwater.workqueue.selectors import work_queue_for_user


def completeness(user):
    return [i for i in work_queue_for_user(user=user, sources=["relief"]).items if i.kind == "relief.completeness"]


def test_a_new_credit_application_waits_on_the_relief_staffs_queue(billed, policy, personas, at):
    at(date(2026, 10, 1))
    bmp = CreditType.objects.get(policy=policy, code="BMP")
    app = sv.credit_apply(parcel=billed["house"], credit_type=bmp, statement="Rain garden", acting_user=personas["owner"])
    for who in ("staff", "director"):
        items = completeness(personas[who])
        assert [i.record_label for i in items] == [app.case.number], who
        assert items[0].party == "town" and "credits ¶D" in items[0].citation
    owner = completeness(personas["owner"])
    assert [i.record_label for i in owner] == [app.case.number]   # the Town acts: on the owner's dates too
    for who in ("collector", "inspector", "outsider", "consultant"):
        assert completeness(personas[who]) == [], who
    sv.credit_determine_incomplete(application=app, missing="Site plan", acting_user=personas["staff"])
    assert completeness(personas["staff"]) == []
