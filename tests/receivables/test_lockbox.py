"""Lockbox and processor files post set-based (issue 15: a 5,000-row file posted row by row in one request,
about 105 s) with the same rules as one payment at a time, all or nothing; and two posts of the same file
at once post it once: the second is told "already posted" (it used to get a 500)."""
from __future__ import annotations

import random
from datetime import date, timedelta
from decimal import Decimal as D

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from stormwater.audit.models import AuditEvent
from stormwater.receivables.ledger import account_position
from stormwater.receivables.models import Payment, PaymentBatch
from stormwater.receivables.services import BatchRejected, payment_batch_post, payment_post
from stormwater.utility.models import Account, EntryKind, LedgerEntry

from .test_positions_sql import _random_account, _resolutions  # same package (tests/receivables is one: two test_refused_forms)


def lockbox(rows) -> bytes:
    return ("account,amount,received_on,reference,method\n"
            + "".join(f"{a},{amt},{day},{ref},{m}\n" for a, amt, day, ref, m in rows)).encode()


def _entries(account):
    """An account's ledger as its installments see it (ids and memos aside)."""
    seqs = {}
    out = []
    for e in LedgerEntry.objects.filter(account=account).order_by("effective_on", "kind", "component", "amount", "id"):
        bill_n = e.bill.number.split("-", 1)[1] if e.bill_id else None
        out.append((e.kind, e.component, e.amount, e.effective_on, bill_n, e.installment.seq if e.installment_id else None,
                    e.payment.reference if e.payment_id else None))
    return out


@pytest.mark.parametrize("seed", [7, 8])
def test_a_file_posts_exactly_as_its_payments_one_at_a_time(db, seed):
    """Two identical sets of random accounts (bills, payments, reversals, demands, liens, back bills …): one
    gets the file, the other the same payments one by one through payment_post. The ledgers match."""
    resolutions = _resolutions()
    twins = []
    for i in range(30):
        a = _random_account(random.Random(seed * 100 + i), resolutions, seed * 1000 + i)
        b = _random_account(random.Random(seed * 100 + i), resolutions, seed * 1000 + 500 + i)
        assert _entries(a) == _entries(b)
        twins.append((a, b))
    rng = random.Random(seed)
    rows = []
    for n in range(90):  # several payments to one account, on different days, in any order
        a, b = rng.choice(twins)
        amount = rng.choice([D("0.01"), D("26.58"), D("100.00"), D("1414.06"), D(rng.randrange(1, 300000)) / 100])
        day = date(2026, 6, 1) + timedelta(days=rng.randrange(0, 360))
        rows.append((a, b, amount, day, f"ref{n}", rng.choice(["lockbox", "ach", "check"])))
    r = payment_batch_post(filename="lockbox.csv", content=lockbox((a.number, amt, day, ref, m)
                                                                   for a, _, amt, day, ref, m in rows),
                           acting_user=None)
    assert r.posted == 90 and r.total == sum((x[2] for x in rows), D(0))
    for line, (_, b, amount, day, ref, method) in enumerate(rows, start=2):
        payment_post(account=b, amount=amount, received_on=day, method=method, reference=ref, acting_user=None)
    for a, b in twins:
        assert _entries(a) == _entries(b), (a.number, b.number)
        assert account_position(a, as_of=date(2027, 6, 1)).total == account_position(b, as_of=date(2027, 6, 1)).total
    batch_pays = Payment.objects.filter(batch=r.batch).order_by("batch_line")
    assert [(p.batch_line, p.reference) for p in batch_pays] == [(i, f"ref{i - 2}") for i in range(2, 92)]
    assert AuditEvent.objects.filter(action="payment.post", object_id__in=[str(p.pk) for p in batch_pays]).count() == 90
    assert AuditEvent.objects.filter(action="payment_batch.post", object_id=str(r.batch.pk)).count() == 1


def test_a_file_posts_in_the_same_queries_for_10_and_200_rows(billed, add_parcels):
    from stormwater.utility.services import bill_run_issue, fiscal_year

    new = add_parcels(200)
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    accounts = list(Account.objects.filter(parcel__in=new).order_by("pk"))

    def post(name, accts):
        content = lockbox((a.number, "20.00", "2026-11-05", f"{name}{i}", "lockbox") for i, a in enumerate(accts))
        with CaptureQueriesContext(connection) as ctx:
            assert payment_batch_post(filename=name, content=content, acting_user=None).posted == len(accts)
        sql = [q["sql"].lstrip().upper() for q in ctx.captured_queries]
        return [q for q in sql if not q.startswith("INSERT")], [q for q in sql if q.startswith("INSERT")]

    reads_10, inserts_10 = post("a", accounts[:10])
    reads_200, inserts_200 = post("b", accounts[10:])
    assert len(reads_10) == len(reads_200)
    # Rows go in many to a statement (SQLite takes at most 999 values a statement: a few statements a table):
    # the batch, payments, ledger entries, their audit rows, the batch's audit row, the import record and its audit row.
    assert len(inserts_10) == 7 and len(inserts_200) < 200 / 10


def test_a_bad_row_posts_nothing_and_the_rules_hold(billed):
    shops = Account.objects.get(number="SW-02-01-1")
    before = LedgerEntry.objects.count()
    with pytest.raises(BatchRejected) as e:
        payment_batch_post(filename="x.csv", content=lockbox([("SW-02-01-1", "10.00", "2026-11-05", "1", "lockbox"),
                                                              ("SW-02-01-1", "10.001", "2026-11-05", "2", "lockbox")]),
                           acting_user=None)
    assert e.value.errors == ["row 3: amount: must be in whole cents"]
    assert LedgerEntry.objects.count() == before and not PaymentBatch.objects.exists()
    # Interest to the day, then demand → interest → principal on the oldest installment first.
    r = payment_batch_post(filename="y.csv", content=lockbox([("SW-02-01-1", "30.00", "2026-11-05", "9", "ach")]),
                           acting_user=None)
    p = Payment.objects.get(batch=r.batch)
    assert [(e.kind, e.component, e.amount) for e in p.entries.order_by("id")] == [
        ("payment", "interest", D("-10.69")), ("payment", "principal", D("-19.31"))]
    assert LedgerEntry.objects.filter(account=shops, kind=EntryKind.INTEREST).get().amount == D("10.69")


@pytest.mark.django_db(transaction=True)
def test_two_posts_of_one_file_at_once_post_it_once(town, resolution, race):
    if connection.vendor != "postgresql":
        pytest.skip("the in-memory test database holds one connection at a time: see the SQLite test below")
    from stormwater.utility.services import bill_run_issue, fiscal_year

    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    content = lockbox([("SW-01-01-1", "26.58", "2026-10-05", "1001", "lockbox"),
                       ("SW-02-01-1", "1414.06", "2026-10-06", "1002", "lockbox")])

    def clerk():
        return payment_batch_post(filename="lockbox-1005.csv", content=content, acting_user=None)

    results, errors = race(clerk, clerk)
    assert errors == []
    assert sorted(r.already_posted for r in results) == [False, True]
    assert "already posted" in next(r.message for r in results if r.already_posted)
    assert PaymentBatch.objects.count() == 1 and Payment.objects.count() == 2


def test_two_posts_of_one_file_at_once_post_it_once_on_sqlite(tmp_path, migrated_sqlite):
    """The same race on the embedded default: a SQLite file with the web app's settings, two connections (the
    run's migrated database copied in: the script's migrate then has nothing to apply)."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    migrated_sqlite(tmp_path)
    script = Path(__file__).with_name("race_sqlite.py")
    r = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["errors"] == []
    assert sorted(x["already_posted"] for x in out["results"]) == [False, True]
    assert (out["batches"], out["payments"]) == (1, 300)
