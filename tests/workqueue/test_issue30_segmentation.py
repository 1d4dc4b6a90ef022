"""Issue 30: a permit file flagged as possible segmentation (§ 380-4 A) waits for the Director's finding on the
Director's work queue — not only on the permit page — and leaves it once the finding is recorded."""
from __future__ import annotations

from stormwater.permits.models import PermitApplication
from stormwater.workqueue.selectors import work_queue_for_user


def seg_items(user):
    return [i for i in work_queue_for_user(user=user, sources=["permits"]).items if i.kind == "permit.segmentation"]


def test_a_flagged_file_waits_on_the_directors_queue_until_the_finding(today, personas, make_permits):
    flagged, plain = make_permits(2)
    PermitApplication.objects.filter(pk=flagged.pk).update(segmentation_flagged=True)
    items = seg_items(personas["director"])
    assert [i.record_label for i in items] == [flagged.case.number]
    assert items[0].citation == "§ 380-4 A" and items[0].act_url.endswith("#segmentation")
    for who in ("staff", "collector", "clerk", "inspector", "owner", "consultant", "outsider"):
        assert seg_items(personas[who]) == [], who   # the finding is the Director's (permit.decide)
    PermitApplication.objects.filter(pk=flagged.pk).update(segmentation_finding="separate", segmentation_reason="r")
    assert seg_items(personas["director"]) == []
