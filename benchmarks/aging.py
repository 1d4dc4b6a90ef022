"""Benchmark: the aging report for N accounts vs one plain SQL aggregate producing the same buckets.

Run on PostgreSQL (the production database) with a throw-away server:
    bin/pg-temp .venv/bin/python benchmarks/aging.py --accounts 100000
    bin/pg-temp .venv/bin/python benchmarks/aging.py --accounts 1000000

What is timed, in the same process and database (so the ratio means something on a busy machine):
- report: what /collections/aging/ does — ``receivables.selectors.aging_report`` (receivables.positions:
  every account's installments, interest accrued to the day with window functions, the five buckets),
  its first page of 100 rows and the totals over every account (one statement, plus the indexed MIN
  that bounds the rolled due dates);
- baseline: one plain SQL aggregate (no window, no per-account rows, no paging, no CTE) producing the same
  five bucket totals and grand total: one GROUP BY over the installments joined to their entries, each
  installment's interest in closed form — charge × days − Σ payment × days it stopped interest — which is
  exact here because no balance in this data goes below zero and every due date is a business day;
- export: every row of the report streamed (the CSV download's reads), for information.
The report's totals and the baseline's must agree to the cent, and the export stream as many rows as the
report counts, or the benchmark fails (exit 1). Target: the report within 2× of the baseline (issue 15).
``--accounts 200 --repeat 1`` is the smoke run of the test suite (tests/benchmarks).

The data (written with COPY): one FY2027 bill per account in two installments six months apart (80 %
houses at $53.16, the rest $100–$5,000), in eight cohorts billed a month apart from September 2026, so
every bucket has accounts; then 45 % paid on time (most paying both installments), 15 % a late partial
payment after interest was posted, 5 % a payment that bounced (reversed), 10 % a demand with its
interest, 3 % an overpayment kept as a credit, the rest unpaid. As of 2027-06-30.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stormwater.settings")

AS_OF = date(2027, 6, 30)


def _copy(model, cols: list[str], rows) -> int:
    """COPY ``rows`` (values for ``cols``, in that order) into ``model``'s table. The column list is the model's:
    every other column gets the value Django would give it on a save that does not name it (its default; now for an
    auto_now(_add) time; NULL where allowed), so a field added to the model later is filled, not left to a NOT NULL
    violation; one with no such value stops the benchmark naming it (this script must then supply it)."""
    from django.db import connection
    from django.utils import timezone

    fields = {f.column: f for f in model._meta.concrete_fields}
    unknown = [c for c in cols if c not in fields]
    if unknown:
        raise SystemExit(f"{model._meta.db_table}: no column {', '.join(unknown)} (the model changed: update build())")
    rest, filled = [], []
    for column, f in fields.items():
        if column in cols:
            continue
        if f.has_default() or f.empty_strings_allowed and not f.null:
            value = f.get_default()
        elif getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False):
            value = timezone.now()
        elif f.null:
            value = None
        else:
            raise SystemExit(f"{model._meta.db_table}.{column} is NOT NULL with no default: build() must supply it")
        rest.append(column)
        filled.append(f.get_db_prep_save(value, connection))
    filled = tuple(filled)
    n = 0
    with connection.cursor() as c:
        with c.cursor.copy(f"COPY {model._meta.db_table} ({', '.join([*cols, *rest])}) FROM STDIN") as cp:
            for r in rows:
                cp.write_row((*r, *filled))
                n += 1
    return n


def build(n: int) -> dict:
    """N accounts with their bills and ledgers (see the module docstring). → counts."""
    from django.db import connection

    from stormwater.rules.calendar import add_calendar_days
    from stormwater.rules.fees import TABLE_1_BLOCKS
    from stormwater.rules.interest import simple_interest
    from stormwater.rules.money import split_equal
    from stormwater.parcels.models import Owner, Parcel
    from stormwater.utility.models import Account, Bill, BillRun, Installment, LedgerEntry
    from stormwater.utility.services import resolution_adopt

    res = resolution_adopt(label="bench", adopted_on=date(2026, 6, 1), effective_from=date(2026, 7, 1),
                           eru_sqft=Decimal(3400), rate_per_eru=Decimal("53.16"),
                           small_residential_rate=Decimal("53.16"), installments=2, interest_rate_percent=Decimal(12),
                           demand_charge=Decimal(25), blocks=list(TABLE_1_BLOCKS), acting_user=None)
    # Eight cohorts billed a month apart (Sep 2026 – Apr 2027) so every bucket of the aging has accounts;
    # the second installment six months after the first (not yet issued for the later cohorts).
    cohorts = []
    for k in range(8):
        issue1 = date(2026, 9, 15) + timedelta(days=30 * k)
        issue2 = issue1 + timedelta(days=182)
        cohorts.append((issue1, issue2, add_calendar_days(issue1, 30), add_calendar_days(issue2, 30)))
    run = BillRun.objects.create(period_label="FY2027", period_start=date(2026, 7, 1), period_end=date(2027, 6, 30),
                                 issue_date=cohorts[0][0], resolution=res)
    now = datetime.now(timezone.utc)

    def amount(i: int) -> Decimal:
        return Decimal("53.16") if i % 5 else Decimal(100 + (i * 7919) % 490000) / 100

    def kind(i: int) -> int:
        return (i * 2654435761) % 100

    def cohort(i: int):
        return cohorts[(i * 40503) % 8]

    _copy(Owner, ["id", "name", "mailing_address", "email"],
          ((i, f"Owner {i}", f"{i} Main St\nLongmeadow, MA 01106", "") for i in range(1, n + 1)))
    _copy(Parcel, ["id", "parcel_id", "address", "owner_id", "land_use_code", "dwelling_units", "lot_sqft",
                             "public_way", "road_maintenance", "water_sewer_account", "class_override",
                             "class_override_reason"],
          ((i, f"B-{i:07d}", f"{i} Main St", i, "101", 1, Decimal(10000), False, False, "", "", "")
           for i in range(1, n + 1)))
    _copy(Account, ["id", "number", "parcel_id"], ((i, f"SW-B-{i:07d}", i) for i in range(1, n + 1)))
    _copy(Bill, ["id", "number", "run_id", "account_id", "parcel_id", "period_start", "period_end",
                           "issue_date", "owner_name", "mailing_address", "property_class", "impervious_sqft", "erus",
                           "gross_fee", "credit_percent", "amount", "blocks", "explanation", "flagged", "is_back_bill",
                           "water_sewer_account"],
          ((i, f"FY2027-B-{i:07d}", run.pk, i, i, date(2026, 7, 1), date(2027, 6, 30), cohort(i)[0], f"Owner {i}", "x",
            "small_residential", Decimal(3000), 1, amount(i), Decimal(0), amount(i), "[]", "bench", False, False, "")
           for i in range(1, n + 1)))
    _copy(Installment, ["id", "bill_id", "seq", "amount", "issue_date", "due_date"],
          (row for i in range(1, n + 1) for row in (
              (2 * i - 1, i, 1, split_equal(amount(i), 2)[0], cohort(i)[0], cohort(i)[2]),
              (2 * i, i, 2, split_equal(amount(i), 2)[1], cohort(i)[1], cohort(i)[3]))))

    def entries():
        eid = 0

        def e(acct, kind_, comp, amt, on, inst=None, rev=None):
            nonlocal eid
            eid += 1
            bill = acct if inst else None
            return (eid, acct, kind_, comp, amt, on, bill, inst, rev, "", now)

        for i in range(1, n + 1):
            a1, a2 = split_equal(amount(i), 2)
            i1, i2 = 2 * i - 1, 2 * i
            issue1, issue2, due1, due2 = cohort(i)
            yield e(i, "charge", "principal", a1, issue1, i1)
            yield e(i, "charge", "principal", a2, issue2, i2)
            k = kind(i)
            if k < 45:  # on time; most pay the second installment too, once it is issued
                yield e(i, "payment", "principal", -a1, issue1 + timedelta(days=16), i1)
                if k < 30 and issue2 <= AS_OF:
                    yield e(i, "payment", "principal", -a2, issue2 + timedelta(days=16), i2)
            elif k < 60:  # late and partial, after interest was posted to the day
                day = min(due1 + timedelta(days=47), AS_OF)
                interest, _ = simple_interest(unpaid_principal=a1, due_date=due1, as_of=day)
                yield e(i, "interest", "interest", interest, day, i1)
                yield e(i, "payment", "interest", -interest, day, i1)
                yield e(i, "payment", "principal", -(a1 / 2).quantize(Decimal("0.01")), day, i1)
            elif k < 65:  # a check that bounced
                pay = e(i, "payment", "principal", -a1, issue1 + timedelta(days=25), i1)
                yield pay
                yield e(i, "reversal", "principal", a1, issue1 + timedelta(days=42), i1, rev=pay[0])
            elif k < 75:  # a demand served, interest posted with it
                day = due1 + timedelta(days=18)
                interest, _ = simple_interest(unpaid_principal=a1, due_date=due1, as_of=day)
                yield e(i, "interest", "interest", interest, day, i1)
                yield e(i, "demand", "demand", Decimal("25.00"), day, i1)
            elif k < 78:  # overpaid: the rest kept as a credit balance
                yield e(i, "payment", "principal", -a1, issue1 + timedelta(days=10), i1)
                yield e(i, "payment", "principal", -a2, issue1 + timedelta(days=10), i2)
                yield e(i, "payment", "unapplied", Decimal("-20.00"), issue1 + timedelta(days=10))

    n_entries = _copy(LedgerEntry, ["id", "account_id", "kind", "component", "amount", "effective_on",
                                              "bill_id", "installment_id", "reverses_id", "memo", "created_at"],
                      entries())
    with connection.cursor() as c:
        for t in ("parcels_owner", "parcels_parcel", "utility_account", "utility_bill", "utility_installment",
                  "utility_ledgerentry"):
            c.execute(f"SELECT setval(pg_get_serial_sequence('{t}', 'id'), (SELECT MAX(id) FROM {t}))")
            c.execute(f"ANALYZE {t}")
    return {"accounts": n, "installments": 2 * n, "ledger_entries": n_entries}


BASELINE = """
SELECT
  SUM(CASE WHEN owed > 0 AND issue_date <= %(as_of)s AND late <= 0 THEN owed ELSE 0 END),
  SUM(CASE WHEN owed > 0 AND issue_date <= %(as_of)s AND late BETWEEN 1 AND 30 THEN owed ELSE 0 END),
  SUM(CASE WHEN owed > 0 AND issue_date <= %(as_of)s AND late BETWEEN 31 AND 60 THEN owed ELSE 0 END),
  SUM(CASE WHEN owed > 0 AND issue_date <= %(as_of)s AND late BETWEEN 61 AND 90 THEN owed ELSE 0 END),
  SUM(CASE WHEN owed > 0 AND issue_date <= %(as_of)s AND late > 90 THEN owed ELSE 0 END),
  SUM(unposted) + (SELECT SUM(amount) FROM utility_ledgerentry WHERE effective_on <= %(as_of)s)
FROM (
  SELECT issue_date, late, principal + interest + demand + unposted AS owed, unposted
  FROM (
    SELECT issue_date, late, principal, interest, demand,
           CASE WHEN back THEN 0 ELSE GREATEST(0, ROUND((charge * GREATEST(0, late) - paid_days) * rate / 36500, 2)
                                                   - charged) END AS unposted
    FROM (
      SELECT i.id, i.issue_date, %(as_of)s::date - i.due_date AS late, b.is_back_bill AS back,
             res.interest_rate_percent AS rate,
        SUM(CASE WHEN e.component = 'principal' THEN e.amount ELSE 0 END) AS principal,
        SUM(CASE WHEN e.component = 'interest' THEN e.amount ELSE 0 END) AS interest,
        SUM(CASE WHEN e.component = 'demand' THEN e.amount ELSE 0 END) AS demand,
        SUM(CASE WHEN e.kind = 'interest' THEN e.amount ELSE 0 END) AS charged,
        SUM(CASE WHEN e.kind = 'charge' AND e.component = 'principal' THEN e.amount ELSE 0 END) AS charge,
        SUM(CASE WHEN e.component = 'principal' AND e.kind NOT IN ('charge', 'reversal') AND rv.id IS NULL
                 THEN -e.amount * GREATEST(0, %(as_of)s::date - GREATEST(e.effective_on, i.due_date + 1) + 1)
                 ELSE 0 END) AS paid_days
      FROM utility_installment i
      JOIN utility_bill b ON b.id = i.bill_id
      JOIN utility_billrun r ON r.id = b.run_id
      JOIN utility_rateresolution res ON res.id = r.resolution_id
      JOIN utility_ledgerentry e ON e.installment_id = i.id
      LEFT JOIN (SELECT DISTINCT reverses_id AS id FROM utility_ledgerentry
                 WHERE reverses_id IS NOT NULL AND effective_on <= %(as_of)s) rv ON rv.id = e.id
      WHERE b.issue_date <= %(as_of)s AND (e.effective_on <= %(as_of)s OR e.kind = 'charge')
      GROUP BY i.id, b.is_back_bill, res.interest_rate_percent
    ) per
  ) x
) y
"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--accounts", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs of each (the best is reported)")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from stormwater.receivables.selectors import aging_report
    from stormwater.utility.models import LedgerEntry

    print(f"database: {connection.vendor}", flush=True)
    if connection.vendor != "postgresql":
        print("run on PostgreSQL: bin/pg-temp .venv/bin/python benchmarks/aging.py", file=sys.stderr)
        return 2
    call_command("migrate", verbosity=0)
    if LedgerEntry.objects.exists():
        print("database not empty: use a fresh one (bin/pg-temp)", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    counts = build(args.accounts)
    print(f"setup: {counts} in {time.perf_counter() - t0:.1f} s", flush=True)

    def report():
        r = aging_report(as_of=AS_OF)
        page = r[0:100]
        return r.totals(), page

    def baseline():
        with connection.cursor() as c:
            c.execute(BASELINE, {"as_of": AS_OF})
            return c.fetchone()

    def export():
        return sum(1 for _ in aging_report(as_of=AS_OF))

    def best(fn):
        times, out = [], None
        for _ in range(args.repeat):
            t = time.perf_counter()
            out = fn()
            times.append(time.perf_counter() - t)
        return min(times), out

    rep_s, (totals, page) = best(report)
    base_s, base = best(baseline)
    exp_s, exported = best(export)
    buckets = [totals.buckets[k] for k in ("current", "1-30", "31-60", "61-90", "over 90")]
    base_buckets = [Decimal(v).quantize(Decimal("0.01")) for v in base[:5]]
    agree = buckets == base_buckets and totals.total == Decimal(base[5]).quantize(Decimal("0.01"))
    wrong = [] if agree else ["the report's buckets or total differ from the SQL aggregate's"]
    if exported != totals.count:
        wrong.append(f"the export streamed {exported:,} rows, the report counts {totals.count:,}")
    if not any(buckets):
        wrong.append("every bucket is empty (no data to compare)")
    print(f"report (page of {len(page)} + totals over {totals.count:,} accounts): {rep_s:.2f} s", flush=True)
    print(f"baseline (one SQL aggregate, the same buckets): {base_s:.2f} s", flush=True)
    print(f"export (every row streamed, {exported:,} rows): {exp_s:.2f} s", flush=True)
    print("buckets  report   " + "  ".join(f"{v:,}" for v in buckets) + f"  total {totals.total:,}")
    print("buckets  baseline " + "  ".join(f"{v:,}" for v in base_buckets) + f"  total {Decimal(base[5]):,.2f}")
    print(f"figures agree to the cent: {'yes' if agree else 'NO'}")
    print(f"ratio report/baseline = {rep_s / base_s:.2f}× (target ≤ 2×)")
    if wrong:
        print("correctness: FAILED — " + "; ".join(wrong))
    else:
        print(f"correctness: ok — the report's five buckets and total over {totals.count:,} accounts equal the plain "
              "SQL aggregate's to the cent; the export streamed as many rows")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"accounts": args.accounts, **counts, "report_s": round(rep_s, 3), "baseline_s": round(base_s, 3),
                       "export_s": round(exp_s, 3), "ratio": round(rep_s / base_s, 3), "agree": not wrong,
                       "buckets": [str(b) for b in buckets], "total": str(totals.total)}, f, indent=1)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
