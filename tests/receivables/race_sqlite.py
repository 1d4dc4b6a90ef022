"""Two posts of one lockbox file at the same moment on the embedded SQLite database, as the web app runs it
(a database file, IMMEDIATE transactions, a busy timeout): run by test_lockbox.py in a subprocess, because
the test suite's in-memory SQLite cannot hold two real connections at once.

    python race_sqlite.py DATA_DIR  → prints {"results": [...], "errors": [...], "batches": n, "payments": n}
"""
import json
import os
import sys
import threading
from datetime import date
from decimal import Decimal

os.environ["STORMWATER_DATA_DIR"] = sys.argv[1]
os.environ.pop("DATABASE_URL", None)
os.environ["DJANGO_SETTINGS_MODULE"] = "stormwater.settings"

import django  # noqa: E402

django.setup()

import time_machine  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connections, transaction  # noqa: E402


def _town() -> bytes:
    """300 billed houses; → a lockbox file paying $10 on each."""
    from stormwater.parcels.models import ImperviousSurvey, Owner, Parcel, ParcelImpervious
    from stormwater.rules.fees import TABLE_1_BLOCKS
    from stormwater.utility.services import bill_run_issue, fiscal_year, resolution_adopt

    resolution_adopt(label="r", adopted_on=date(2026, 6, 1), effective_from=date(2026, 7, 1), eru_sqft=Decimal(3400),
                     rate_per_eru=Decimal("53.16"), small_residential_rate=Decimal("53.16"), installments=2,
                     interest_rate_percent=Decimal(12), demand_charge=Decimal(25), blocks=list(TABLE_1_BLOCKS),
                     acting_user=None)
    survey = ImperviousSurvey.objects.create(name="s", surveyed_on=date(2026, 4, 1))
    rows = []
    for i in range(300):
        o = Owner.objects.create(name=f"O{i}", mailing_address="x")
        p = Parcel.objects.create(parcel_id=f"P-{i:03d}", address=f"{i} Elm", owner=o, land_use_code="101",
                                  dwelling_units=1, lot_sqft=Decimal(9000))
        ParcelImpervious.objects.create(survey=survey, parcel=p, impervious_sqft=Decimal(3000))
        rows.append(f"SW-P-{i:03d},10.00,2026-10-05,{1000 + i}\n")
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    return ("account,amount,received_on,reference\n" + "".join(rows)).encode()


def main() -> None:
    from stormwater.receivables.models import Payment, PaymentBatch
    from stormwater.receivables.services import payment_batch_post

    call_command("migrate", verbosity=0)
    with transaction.atomic():  # one commit for the set-up, not one a row
        content = _town()
    barrier = threading.Barrier(2)
    results, errors = [], []

    def clerk():
        try:
            barrier.wait(timeout=10)
            r = payment_batch_post(filename="lockbox.csv", content=content, acting_user=None)
            results.append({"already_posted": r.already_posted, "posted": r.posted, "message": r.message})
        except Exception as e:  # noqa: BLE001 - reported to the test
            errors.append(f"{type(e).__name__}: {e}")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=clerk) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    print(json.dumps({"results": results, "errors": errors, "batches": PaymentBatch.objects.count(),
                      "payments": Payment.objects.count()}))


if __name__ == "__main__":
    with time_machine.travel(date(2027, 6, 1), tick=False):
        main()
