"""Two clerks issuing the same bill run at the same moment bill every account once (PostgreSQL)."""
from datetime import date

import pytest
from django.db import connection

from stormwater.utility.models import Bill, BillRun
from stormwater.utility.services import bill_run_issue, fiscal_year

pytestmark = pytest.mark.django_db(transaction=True)


def test_concurrent_runs_of_one_period_bill_each_account_once(town, resolution, race):
    if connection.vendor != "postgresql":
        pytest.skip("row locks are a PostgreSQL matter; SQLite serializes writers with IMMEDIATE transactions")
    label, start, end = fiscal_year(2027)

    def issue():
        return bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 15),
                              acting_user=None)

    results, errors = race(issue, issue)
    assert errors == []
    assert sorted(r.bills for r in results)[0] == 0
    assert BillRun.objects.count() == 1
    assert Bill.objects.count() == max(r.bills for r in results)
    assert Bill.objects.values("account", "period_start").distinct().count() == Bill.objects.count()


def test_two_clerks_preparing_at_once_get_one_proof_and_two_approvers_issue_it_once(town, resolution, personas,
                                                                                     race, monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("row locks are a PostgreSQL matter; SQLite serializes writers with IMMEDIATE transactions")
    from stormwater.utility.billrun import prepare as prepare_mod
    from stormwater.utility.models import LedgerEntry, RunState
    from stormwater.utility.services import bill_run_approve, bill_run_prepare, bill_run_start

    monkeypatch.setattr(prepare_mod, "CHUNK", 2)  # many slices, so the two preparations interleave
    label, start, end = fiscal_year(2027)

    def prepare(user):
        def go():
            run, _ = bill_run_start(period_label=label, period_start=start, period_end=end,
                                    issue_date=date(2026, 9, 15), acting_user=user)
            return bill_run_prepare(run=run, acting_user=user)
        return go

    results, errors = race(prepare(personas["staff"]), prepare(personas["collector"]))
    assert errors == []
    run = BillRun.objects.get()
    assert run.state == RunState.PROOF and {r.run.pk for r in results} == {run.pk}
    assert Bill.all_objects.filter(run=run).count() == run.bill_count == 8
    assert Bill.all_objects.values("account", "period_start").distinct().count() == 8
    assert run.chunks.count() == 5

    results, errors = race(lambda: bill_run_approve(run=run, acting_user=personas["collector"]),
                           lambda: bill_run_approve(run=run, acting_user=personas["director"]))
    assert errors == [] and sorted(r.bills for r in results) == [0, 8]
    assert LedgerEntry.objects.count() == 16


def test_two_clerks_starting_the_proof_at_once_start_one_run_and_one_job(town, resolution, personas, race,
                                                                         run_worker):
    if connection.vendor != "postgresql":
        pytest.skip("row locks are a PostgreSQL matter; SQLite serializes writers with IMMEDIATE transactions")
    from stormwater.jobs.models import Job
    from stormwater.utility.models import RunState
    from stormwater.utility.services import bill_run_prepare_later, bill_run_start

    label, start, end = fiscal_year(2027)

    def press(user):
        def go():  # what the page's "Prepare the proof" does
            run, _ = bill_run_start(period_label=label, period_start=start, period_end=end,
                                    issue_date=date(2026, 9, 15), acting_user=user)
            return bill_run_prepare_later(run=run, acting_user=user)
        return go

    results, errors = race(press(personas["staff"]), press(personas["collector"]))
    assert errors == []
    assert BillRun.objects.count() == 1 and Job.objects.count() == 1
    assert sorted(created for _, created in results) == [False, True]
    run_worker()
    run = BillRun.objects.get()
    assert run.state == RunState.PROOF and Bill.all_objects.filter(run=run).count() == run.bill_count == 8


def test_a_payment_does_not_wait_for_the_foreign_key_checks_of_an_approval(town, resolution):
    """An approval posting charges takes FOR KEY SHARE on every account it charges (PostgreSQL's foreign-key
    checks) until it commits; a payment locks its account FOR NO KEY UPDATE, which does not wait for that.
    (lock_timeout turns a wait into an error instead of a hang; it measures waiting for a lock, not speed.)"""
    if connection.vendor != "postgresql":
        pytest.skip("row lock modes are a PostgreSQL matter")
    import threading
    from decimal import Decimal

    from django.db import connections, transaction

    from stormwater.receivables.services import payment_post

    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    account = Bill.objects.get(parcel=town["house"]).account
    held, done = threading.Event(), threading.Event()

    def approval_holding_its_foreign_key_locks():
        try:
            with transaction.atomic(), connection.cursor() as c:
                c.execute("SELECT id FROM utility_account WHERE id = %s FOR KEY SHARE", [account.pk])
                held.set()
                done.wait(60)
        finally:
            connections.close_all()

    t = threading.Thread(target=approval_holding_its_foreign_key_locks)
    t.start()
    try:
        assert held.wait(30)
        with connection.cursor() as c:
            c.execute("SET lock_timeout = '5s'")
        payment = payment_post(account=account, amount=Decimal("5.00"), received_on=date(2026, 10, 1),
                               acting_user=None)
    finally:
        done.set()
        t.join()
        with connection.cursor() as c:
            c.execute("SET lock_timeout = 0")
    assert payment.pk is not None
