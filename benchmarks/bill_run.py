"""Benchmark: a bill run for N synthetic parcels vs a plain-SQL bulk insert of the same rows.

Run on PostgreSQL (the production database) with a throw-away server:
    bin/pg-temp .venv/bin/python benchmarks/bill_run.py --parcels 100000
Reports bills per second for both and the ratio (target: the run within 3× of the baseline).
Both are measured in the same process and database, so the ratio is meaningful on a noisy machine.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
from datetime import date
from decimal import Decimal

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stormwater.settings")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--parcels", type=int, default=100_000)
    args = ap.parse_args()
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection, transaction

    from stormwater.parcels.models import ImperviousSurvey, Owner, Parcel, ParcelImpervious
    from stormwater.rules.fees import TABLE_1_BLOCKS
    from stormwater.utility.models import Bill, Installment, LedgerEntry
    from stormwater.utility.services import bill_run_issue, fiscal_year, resolution_adopt

    print(f"database: {connection.vendor}", flush=True)
    call_command("migrate", verbosity=0)
    if Parcel.objects.exists():
        print("database not empty: use a fresh one (bin/pg-temp)", file=sys.stderr)
        return 2
    rng = random.Random(5)
    n = args.parcels
    t0 = time.perf_counter()
    owners = Owner.objects.bulk_create(
        [Owner(name=f"Owner {i}", mailing_address=f"{i} Main St\nLongmeadow, MA 01106") for i in range(n)],
        batch_size=5000)
    uses = ["101"] * 80 + ["104"] * 8 + ["325", "340", "401", "111", "112", "013", "903", "130"] * 2
    parcels = Parcel.objects.bulk_create(
        [Parcel(parcel_id=f"B-{i:07d}", address=f"{i} Main St", owner=owners[i], land_use_code=(u := rng.choice(uses)),
                dwelling_units=(1 if u == "101" else 2 if u == "104" else 12 if u.startswith("11") else 0
                                if u == "130" else 1 if u == "013" else None),
                lot_sqft=Decimal(rng.randint(8000, 400000))) for i in range(n)], batch_size=5000)
    survey = ImperviousSurvey.objects.create(name="bench", surveyed_on=date(2026, 4, 1))
    ParcelImpervious.objects.bulk_create(
        [ParcelImpervious(survey=survey, parcel=p, impervious_sqft=Decimal(rng.randint(500, 7000)))
         for p in parcels], batch_size=5000)
    resolution_adopt(label="bench", adopted_on=date(2026, 6, 1), effective_from=date(2026, 7, 1),
                     eru_sqft=Decimal(3400), rate_per_eru=Decimal("53.16"), small_residential_rate=Decimal("53.16"),
                     installments=4, interest_rate_percent=Decimal(12), demand_charge=Decimal(25),
                     blocks=list(TABLE_1_BLOCKS), acting_user=None)
    print(f"setup: {n} parcels in {time.perf_counter() - t0:.1f} s", flush=True)

    label, start, end = fiscal_year(2027)
    t0 = time.perf_counter()
    result = bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 15),
                            acting_user=None)
    run_s = time.perf_counter() - t0
    bills = result.bills
    print(f"bill run: {bills} bills, {Installment.objects.count()} installments, "
          f"{LedgerEntry.objects.count()} ledger entries in {run_s:.2f} s", flush=True)

    # Baseline: the same rows (bills, installments, ledger entries) read back as plain tuples and
    # inserted again with plain SQL (executemany) into the same tables, in a transaction rolled back.
    def rows(model):
        fields = [f for f in model._meta.concrete_fields if not f.primary_key]
        cols = [f.column for f in fields]
        with connection.cursor() as c:
            c.execute(f"SELECT {', '.join(cols)} FROM {model._meta.db_table}")
            data = c.fetchall()
        return cols, data

    bill_cols, bill_rows = rows(Bill)
    inst_cols, inst_rows = rows(Installment)
    led_cols, led_rows = rows(LedgerEntry)
    # New keys so the copies do not collide: bills get new numbers and a shifted period start.
    num_i, ps_i = bill_cols.index("number"), bill_cols.index("period_start")
    bill_rows = [r[:num_i] + (r[num_i] + "-b",) + r[num_i + 1:ps_i] + (date(2027, 7, 1),) + r[ps_i + 1:]
                 for r in bill_rows]

    def insert(table, cols, data):
        ph = ", ".join(["%s"] * len(cols))
        with connection.cursor() as c:
            c.executemany(f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({ph})", data)

    import json
    blk = bill_cols.index("blocks")
    bill_rows = [r[:blk] + (json.dumps(r[blk]) if not isinstance(r[blk], str) else r[blk],) + r[blk + 1:]
                 for r in bill_rows]
    t0 = time.perf_counter()
    try:
        with transaction.atomic():
            insert(Bill._meta.db_table, bill_cols, bill_rows)
            inst_rows_b = [r for r in inst_rows]
            # Installments and ledger entries point at the original bills: the same row shapes and
            # index work; the unique (bill, seq) would collide, so seq is shifted.
            seq_i = inst_cols.index("seq")
            insert(Installment._meta.db_table, inst_cols,
                   [r[:seq_i] + (r[seq_i] + 10,) + r[seq_i + 1:] for r in inst_rows_b])
            insert(LedgerEntry._meta.db_table, led_cols, led_rows)
            base_s = time.perf_counter() - t0
            raise RuntimeError("rollback")
    except RuntimeError:
        pass
    print(f"baseline plain-SQL insert of the same rows: {base_s:.2f} s", flush=True)
    print(f"bills/s: run {bills / run_s:,.0f}  baseline {bills / base_s:,.0f}  ratio run/baseline = "
          f"{run_s / base_s:.2f}× (target ≤ 3×)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
