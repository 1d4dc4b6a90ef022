"""Who sees what on the work queue: each app's items reach the roles that act on them and the parties to the
file, nobody else; due dates follow the clocks' rules; the queue is sorted overdue first, then by due date."""
from __future__ import annotations

from datetime import date, datetime

import pytest

from stormwater.workqueue.registry import QueueContext, WorkItem, collect, register, _PROVIDERS
from stormwater.workqueue.selectors import work_queue_for_user

from .conftest import EASTERN, TODAY


def kinds(user, source=None):
    return [i.kind for i in work_queue_for_user(user=user, sources=[source] if source else None).items]


def test_every_app_registers_its_provider():
    assert {"relief", "permits", "construction", "stewardship", "collections", "bills", "bill_runs"} <= set(_PROVIDERS)


def test_relief_items_reach_the_deciders_and_the_owner_only(today, personas, make_relief):
    make_relief(1)
    for who in ("director", "staff", "owner"):
        assert kinds(personas[who], "relief") == ["relief.credit_decision"], who
    for who in ("clerk", "inspector", "consultant", "assessor", "outsider"):
        assert kinds(personas[who], "relief") == [], who
    item = work_queue_for_user(user=personas["director"]).items[0]
    # credits ¶E: 30 days from the complete application (Oct 27) → Thu Nov 26, Thanksgiving → Fri Nov 27 (MGL c.4 §9)
    assert item.due == date(2026, 11, 27) and not item.overdue and item.citation == "Ch. 295 Art. IV credits ¶E"
    assert item.act_url.endswith("#actions") and item.perms


def test_permit_items_by_who_acts(today, personas, make_permits):
    make_permits(1)
    assert sorted(kinds(personas["director"], "permits")) == ["permit.action", "permit.consultant_appeal",
                                                              "permit.consultant_payment", "permit.info_request"]
    assert kinds(personas["collector"], "permits") == ["permit.consultant_payment"]   # 53G deposits
    assert kinds(personas["clerk"], "permits") == ["permit.consultant_appeal"]       # the Select Board's decision
    assert kinds(personas["inspector"], "permits") == []
    # the applicant and the engaged consultant are parties: every date of their file
    assert len(kinds(personas["owner"], "permits")) == 4
    assert len(kinds(personas["consultant"], "permits")) == 4
    assert kinds(personas["outsider"], "permits") == []
    action = next(i for i in work_queue_for_user(user=personas["staff"]).items if i.kind == "permit.action")
    assert action.due == date(2026, 11, 30) and action.party == "town"  # § 380-10 I(2): 42 days from Oct 19


def test_construction_items_inspections_stabilization_violations(today, personas, make_construction):
    make_construction(1)
    q = work_queue_for_user(user=personas["inspector"], sources=["construction"])
    by_kind = {i.kind: i for i in q.items}
    assert set(by_kind) == {"construction.inspection.storm", "construction.inspection.final",
                            "construction.stabilization", "construction.violation.correct"}
    storm = by_kind["construction.inspection.storm"]
    # CGP 2022 Part 4.2(b): within 24 hours of 0.40 in of rain ending Nov 9 10:00 → Nov 10 10:00, passed
    assert storm.due_at == datetime(2026, 11, 10, 10, tzinfo=EASTERN) and storm.overdue
    assert storm.act_url.endswith("?kind=erosion_storm")
    assert by_kind["construction.stabilization"].due == date(2026, 11, 21)  # § 380-11 C(3)(a): 7 days
    assert q.items[0] is storm  # overdue first
    # the design engineer (a consultant) sees the inspection they noticed and the violation on their project
    assert sorted(kinds(personas["consultant"], "construction")) == ["construction.inspection.final",
                                                                     "construction.violation.correct"]
    assert len(kinds(personas["owner"], "construction")) == 4
    assert kinds(personas["outsider"], "construction") == []
    assert kinds(personas["collector"], "construction") == []


def test_stewardship_certification_overdue_and_failure_to_maintain(today, personas, make_stewardship):
    make_stewardship(1)
    q = work_queue_for_user(user=personas["staff"], sources=["stewardship"])
    cert, cure = q.items
    # § 380-14 C(2)(l): recorded Nov 3, 2025 → due Tue Nov 3, 2026, not received → overdue
    assert cert.kind == "stewardship.certification" and cert.due == date(2026, 11, 3) and cert.overdue
    assert cure.kind == "stewardship.maintenance" and cure.due == date(2026, 12, 11) and not cure.overdue
    assert len(kinds(personas["owner"], "stewardship")) == 2
    assert kinds(personas["outsider"], "stewardship") == []
    assert kinds(personas["collector"], "stewardship") == []


def test_owner_sees_their_installments_to_pay(today, personas, make_bills):
    make_bills(2)
    q = work_queue_for_user(user=personas["owner"], sources=["bills"])
    # fee ¶B: issued Thu Sep 10, due 30 days later (Sat Oct 10 → Tue Oct 13, after Columbus Day); unpaid → overdue;
    # the second installment is not issued before Mar 10, 2027
    assert [i.due for i in q.items] == [date(2026, 10, 13)] * 2 and all(i.overdue for i in q.items)
    assert "plus interest" in q.items[0].action
    assert kinds(personas["outsider"], "bills") == [] and kinds(personas["collector"], "bills") == []


def test_collections_commitments_ripe_and_bills_past_due(today, personas, make_bills):
    from stormwater.receivables.services import demand_serve
    from stormwater.utility.models import Account

    make_bills(3)
    a = Account.objects.order_by("pk").first()
    demand_serve(account=a, served_on=date(2026, 10, 20), acting_user=personas["collector"])
    items = work_queue_for_user(user=personas["collector"], sources=["collections"]).items
    assert [i.kind for i in items] == ["collections.commitment", "collections.demand"]
    # billing ¶D: 14 days after mailing on Oct 20 → the Collector commits from Nov 4
    assert items[0].due == date(2026, 11, 4) and "Commit 1 unpaid demand " in items[0].action
    assert "2 accounts past due" in items[1].action and items[1].due is None
    assert kinds(personas["staff"], "collections") == [] and kinds(personas["owner"], "collections") == []


def test_bill_run_awaiting_approval(today, personas, resolution):
    """The hook in utility/workqueue.py::bill_run_items: a proof waiting for approval reaches those who approve."""
    from stormwater.utility import models

    if not hasattr(models, "RunState"):
        pytest.skip("bill run proof/approve states arrive with the billrun slice (utility.models.RunState)")
    models.BillRun.objects.create(period_label="FY2028", period_start=date(2027, 7, 1), period_end=date(2028, 6, 30),
                                  issue_date=date(2026, 11, 20), resolution=resolution, state=models.RunState.PROOF,
                                  bill_count=12, total_billed="640.00")
    for who in ("director", "collector"):
        items = work_queue_for_user(user=personas[who], sources=["bill_runs"]).items
        assert [i.kind for i in items] == ["bill_run.approve"] and items[0].due == date(2026, 11, 20), who
    assert kinds(personas["owner"], "bill_runs") == [] and kinds(personas["inspector"], "bill_runs") == []


def test_queue_is_sorted_overdue_first_then_by_due_date_undated_last(today, personas, make_relief, make_construction,
                                                                     make_stewardship, make_permits):
    make_relief(1), make_construction(1), make_stewardship(1), make_permits(1)
    items = work_queue_for_user(user=personas["director"]).items
    flags = [i.overdue for i in items]
    assert flags == sorted(flags, reverse=True) and flags[0]
    dated = [i.due for i in items if not i.overdue and i.due is not None]
    assert dated == sorted(dated)
    undated = [n for n, i in enumerate(items) if i.due is None]
    assert undated and undated == list(range(len(items) - len(undated), len(items)))
    assert {i.source for i in items} == {"relief", "construction", "stewardship", "permits"}


def test_a_failing_provider_is_named_and_the_rest_shown(today, personas, make_relief):
    make_relief(1)

    @register("broken", label="Broken app")
    def broken(ctx):
        raise RuntimeError("boom")
    try:
        q = work_queue_for_user(user=personas["director"])
        assert q.failed == ["Broken app"] and [i.kind for i in q.items] == ["relief.credit_decision"]
    finally:
        _PROVIDERS.pop("broken")


def test_registry_keeps_only_what_the_user_may_see(today, personas):
    """A provider that yields too much still shows nothing it should not (WorkItem.visible_to)."""
    def item(**kw):
        base = dict(source="leaky", kind="k", title="t", action="a", due=TODAY, overdue=False, record_url="/",
                    record_label="r", act_url="/", citation="c")
        return WorkItem(**{**base, **kw})

    @register("leaky", label="Leaky")
    def leaky(ctx):
        yield item(title="decide", perms=("relief.decide",))
        yield item(title="party", user_ids=frozenset({personas["owner"].pk, personas["staff"].pk}))
    try:
        titles = lambda who: [i.title for i in collect(QueueContext(personas[who], TODAY, datetime.now(EASTERN)),  # noqa: E731
                                                       only=["leaky"]).items]
        assert titles("director") == ["decide"]
        assert titles("owner") == ["party"]
        assert titles("staff") == []      # staff recorded as applicant of a walk-in's paper filing: not theirs
        assert titles("outsider") == []
    finally:
        _PROVIDERS.pop("leaky")
