"""The permit and waiver state machines: the whole table pinned, every allowed move made through the one
transition service, every other move refused with nothing changed."""
from datetime import date

import pytest
from django.db import DatabaseError, transaction

from stormwater.appendonly import APPEND_ONLY_MESSAGE
from stormwater.audit.models import AuditEvent
from stormwater.cases.machines import MACHINES
from stormwater.cases.models import Case, CaseEvent, ClockExtension
from stormwater.cases.services import (ERR_BEFORE_LAST, TransitionError, case_open, case_transition, clock_extend,
                                       clock_start)
from stormwater.permits import workflow as wf

PINNED_PERMIT = {
    "draft": {"filed", "withdrawn"},
    "filed": {"incomplete", "under_review", "withdrawn"},
    "incomplete": {"filed", "denied", "withdrawn"},
    "under_review": {"info_requested", "consultant_fee_due", "approved", "approved_conditions", "disapproved",
                     "denied", "withdrawn"},
    "info_requested": {"under_review", "disapproved", "withdrawn"},
    "consultant_fee_due": {"under_review", "consultant_appeal", "denied", "withdrawn"},
    "consultant_appeal": {"consultant_fee_due", "under_review", "withdrawn"},
    "approved": {"closed"},
    "approved_conditions": {"closed"},
    "disapproved": {"closed"},
    "denied": {"closed"},
    "withdrawn": {"closed"},
    "closed": set(),
}
PINNED_WAIVER = {
    "requested": {"info_requested", "granted", "denied", "withdrawn"},
    "info_requested": {"requested", "denied", "withdrawn"},
    "granted": set(), "denied": set(), "withdrawn": set(),
}


def test_the_permit_table_is_exactly_the_pinned_table():
    assert {k: set(v) for k, v in MACHINES["permit"].transitions.items()} == PINNED_PERMIT
    assert {k.value: {s.value for s in v} for k, v in wf.TRANSITIONS.items()} == PINNED_PERMIT
    assert MACHINES["permit"].initial == "draft"


def test_the_waiver_table_is_exactly_the_pinned_table():
    assert {k: set(v) for k, v in MACHINES["waiver"].transitions.items()} == PINNED_WAIVER


def test_the_tolling_and_meeting_tables():
    m = MACHINES["permit"]
    assert {s: {k for k, _ in v} for s, v in m.tolls.items()} == {
        "incomplete": {"action"}, "info_requested": {"action"},
        "consultant_appeal": {"action", "consultant_payment"}}
    for s in ("approved", "approved_conditions", "disapproved", "denied", "withdrawn"):
        assert "action" in m.meets[s]
    assert m.closed == {"closed"}


def _case_in(kind, status):
    return Case.objects.create(kind=kind, number=f"T-{kind}-{status}", status=status, title="t")


ALL_PAIRS = [(k, s, d) for k, table in (("permit", PINNED_PERMIT), ("waiver", PINNED_WAIVER))
             for s in table for d in table if s != d]


@pytest.mark.django_db
@pytest.mark.parametrize("kind,src,dst", [p for p in ALL_PAIRS if p[2] in (PINNED_PERMIT if p[0] == "permit"
                                                                            else PINNED_WAIVER)[p[1]]])
def test_every_allowed_transition_is_made_and_recorded(kind, src, dst, personas):
    case = _case_in(kind, src)
    case_transition(case=case, to=dst, acting_user=personas["director"], why="test move")
    case.refresh_from_db()
    assert case.status == dst
    ev = CaseEvent.objects.get(case=case, kind="status")
    assert (ev.from_status, ev.to_status, ev.actor, ev.why) == (src, dst, personas["director"], "test move")
    assert AuditEvent.objects.filter(action=f"{kind}.transition", object_id=str(case.pk)).count() == 1
    assert (case.closed_at is not None) == (dst in MACHINES[kind].closed)


@pytest.mark.django_db
@pytest.mark.parametrize("kind,src,dst", [p for p in ALL_PAIRS if p[2] not in (PINNED_PERMIT if p[0] == "permit"
                                                                                else PINNED_WAIVER)[p[1]]])
def test_every_illegal_transition_is_refused_and_changes_nothing(kind, src, dst, personas):
    case = _case_in(kind, src)
    with pytest.raises(TransitionError, match="may not go from"):
        case_transition(case=case, to=dst, acting_user=personas["director"])
    case.refresh_from_db()
    assert case.status == src and not CaseEvent.objects.filter(case=case).exists()


@pytest.mark.django_db
def test_unknown_status_is_refused(personas):
    case = _case_in("permit", "draft")
    with pytest.raises(TransitionError):
        case_transition(case=case, to="approved_by_magic", acting_user=None)


@pytest.mark.django_db
def test_a_precondition_refuses_and_rolls_back(personas):
    case = _case_in("permit", "filed")

    def check(_):
        raise TransitionError("no")
    with pytest.raises(TransitionError):
        case_transition(case=case, to="under_review", acting_user=None, check=check)
    case.refresh_from_db()
    assert case.status == "filed"


@pytest.mark.django_db
def test_effective_dates_may_not_be_in_the_future_or_before_the_last_change(personas):
    from django.utils import timezone
    case = _case_in("permit", "draft")
    with pytest.raises(TransitionError, match="future"):
        case_transition(case=case, to="filed", acting_user=None, on=date(2999, 1, 1))
    case_transition(case=case, to="filed", acting_user=None, on=timezone.localdate())
    with pytest.raises(TransitionError, match="before the case's last status change"):
        case_transition(case=case, to="incomplete", acting_user=None, on=date(2000, 1, 1))
    assert ERR_BEFORE_LAST


@pytest.mark.django_db
def test_tolls_open_on_entering_and_close_on_leaving_a_tolling_status(personas):
    from django.utils import timezone
    today = timezone.localdate()
    case = _case_in("permit", "filed")
    from datetime import timedelta
    clock = clock_start(case=case, kind="action", label="a", citation="c", start=today - timedelta(days=1), length=42,
                        acting_user=None)
    case_transition(case=case, to="incomplete", acting_user=None)
    assert clock.state().due is None and clock.tolls.get().last is None
    case_transition(case=case, to="filed", acting_user=None)
    t = clock.tolls.get()
    assert (t.first, t.last) == (today, today)
    assert clock.state().tolled_days == 1  # stopped today: today does not count


@pytest.mark.django_db
def test_case_numbers_count_per_prefix_and_year(personas):
    a = case_open(kind="permit", title="a", acting_user=None, year=2026)
    b = case_open(kind="permit", title="b", acting_user=None, year=2026)
    w = case_open(kind="waiver", title="w", acting_user=None, year=2026)
    assert (a.number, b.number, w.number) == ("SWP-2026-0001", "SWP-2026-0002", "SWW-2026-0001")
    assert a.status == "draft" and w.status == "requested"


@pytest.mark.django_db(transaction=True)
def test_the_timeline_and_extensions_are_append_only_in_the_database(personas):
    from django.utils import timezone
    case = case_open(kind="permit", title="a", acting_user=None)
    clock_start(case=case, kind="action", label="a", citation="c", start=timezone.localdate(), length=42,
                acting_user=None)
    clock_extend(case=case, kind="action", days=5, reason="agreed", acting_user=None)
    with pytest.raises(ValueError, match="append-only"):
        CaseEvent.objects.first().save()
    for model in (CaseEvent, ClockExtension):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            model.objects.update(at=timezone.now())
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            model.objects.all()._raw_delete(model.objects.db)  # plain SQL DELETE: the trigger answers
    assert APPEND_ONLY_MESSAGE


@pytest.mark.django_db
def test_an_extension_needs_a_reason_and_a_running_clock(personas):
    case = case_open(kind="permit", title="a", acting_user=None)
    with pytest.raises(ValueError, match="no running"):
        clock_extend(case=case, kind="action", days=5, reason="x", acting_user=None)
    with pytest.raises(ValueError, match="reason"):
        clock_extend(case=case, kind="action", days=5, reason=" ", acting_user=None)


@pytest.mark.django_db
def test_a_clock_points_at_the_event_that_started_it(personas):
    from django.utils import timezone
    case = case_open(kind="permit", title="a", acting_user=None)
    clock = clock_start(case=case, kind="action", label="Final action", citation="§ 380-10 I(2)",
                        start=timezone.localdate(), length=42, acting_user=personas["staff"])
    assert clock.start_event.kind == "clock.start" and clock.start_event.actor == personas["staff"]
    assert "42 calendar days" in clock.start_event.why
