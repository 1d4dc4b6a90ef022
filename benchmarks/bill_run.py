"""Benchmark: a bill run for N synthetic parcels vs the physical floor of writing the same rows.

Run on PostgreSQL (the production database) with a throw-away server:
    bin/pg-temp .venv/bin/python benchmarks/bill_run.py --parcels 100000
and on SQLite (the embedded default):
    STORMWATER_DATA_DIR=$(mktemp -d) .venv/bin/python benchmarks/bill_run.py --parcels 100000

The run is ``bill_run_issue`` (start → proof written slice by slice → approval posting the charges), timed for
FY2027 after an untimed FY2026 run (the steady state: accounts exist, the proof compares with last year;
``--first-year`` times a first run instead). It runs in a child process, so the peak resident memory it reports
(``resource.getrusage``) is the run's own and not the synthetic town's set-up.

Baseline, measured in the same process and database just before (on FY2026's rows, the same shape and number)
and just after the run (its mean is the baseline, so a change of the machine's load during the run hits both
sides): the same rows (the run's bills, installments and ledger entries; and accounts on a first run) written
into copies of their tables with the same indexes, unique and check constraints and no foreign keys — with
``COPY … FROM STDIN`` on PostgreSQL (the floor for writing them), with one prepared ``executemany`` INSERT per
table on SQLite — committed. Issue 15's target: the run within 2× of the COPY at 100,000 parcels; 1,000,000
reported with its memory.

Correctness (exit 1 when it fails): each run's bill count and total equal those computed without the bill run —
every parcel of the set-up classified and priced by ``stormwater.rules`` on the benchmark's own rates — and the
bills, installments and charges posted read back from the database add up to them. ``--parcels 300`` is the
smoke run of the test suite (tests/benchmarks).
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import pickle
import random
import resource
import sys
import tempfile
import time
from collections import Counter
from datetime import date
from decimal import Decimal

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stormwater.settings")
BATCH = 20_000


RATES = ((2026, "50.00"), (2027, "53.16"))  # each fiscal year's rate per ERU and flat small-residential rate
ERU_SQFT = Decimal(3400)
INSTALLMENTS = 4
CONDO_EVERY = 1000  # one condominium in every 1,000 parcels (the first parcel is one: a tiny town has one too)
CONDO_UNITS = (("A", "33.3333"), ("B", "33.3333"), ("C", "33.3334"))


def _units(use: str) -> int | None:
    return {"101": 1, "104": 2, "102": 12, "111": 12, "112": 12, "130": 0, "013": 1}.get(use)


def setup_town(n: int) -> Counter:
    """N parcels of a Longmeadow-like mix, written in batches (the set-up must not hold the town either).
    → what decides each parcel's fee, counted: {(land use, dwelling units, impervious ft², condominium): parcels}
    (the independent check of the run's figures is computed from it: ``expected``)."""
    from stormwater.parcels.models import (AssociationInstrument, AssociationUnit, ImperviousSurvey, InstrumentShare,
                                           Owner, Parcel, ParcelImpervious, PropertyAssociation)
    from stormwater.rules.fees import TABLE_1_BLOCKS
    from stormwater.utility.services import resolution_adopt

    rng = random.Random(5)
    uses = ["101"] * 80 + ["104"] * 8 + ["325", "340", "401", "111", "112", "013", "903", "130"] * 2
    survey = ImperviousSurvey.objects.create(name="bench", surveyed_on=date(2025, 4, 1))
    facts: Counter = Counter()
    for lo in range(0, n, BATCH):
        hi = min(n, lo + BATCH)
        owners = Owner.objects.bulk_create(
            [Owner(name=f"Owner {i}", mailing_address=f"{i} Main St\nLongmeadow, MA 01106") for i in range(lo, hi)])
        specs = []
        for i in range(lo, hi):
            use = rng.choice(uses)
            lot = Decimal(rng.randint(8000, 400000))
            imp = Decimal(rng.randint(500, 7000))
            if i % CONDO_EVERY == 0:
                use = "102"
            specs.append((i, use, lot, imp))
        parcels = Parcel.objects.bulk_create(
            [Parcel(parcel_id=f"B-{i:07d}", address=f"{i} Main St", owner=owners[i - lo], land_use_code=use,
                    dwelling_units=_units(use), lot_sqft=lot) for i, use, lot, imp in specs])
        ParcelImpervious.objects.bulk_create(
            [ParcelImpervious(survey=survey, parcel=p, impervious_sqft=spec[3]) for p, spec in zip(parcels, specs)])
        # The condominiums: an association, its units (by label, no unit parcels) and a recorded master deed whose
        # shares split the master parcel's fee to the cent (Ch. 295 Art. IV ¶G).
        for p, (i, use, _, imp) in zip(parcels, specs):
            condo = i % CONDO_EVERY == 0
            facts[(use, _units(use), imp, condo)] += 1
            if not condo:
                continue
            a = PropertyAssociation.objects.create(parcel=p, name=f"Condo {p.parcel_id}")
            deed = AssociationInstrument.objects.create(association=a, reference=f"Bk {i} Pg 1",
                                                        recorded_on=date(2020, 1, 6), effective_on=date(2020, 1, 6))
            units = AssociationUnit.objects.bulk_create(
                [AssociationUnit(association=a, unit=u, owner=p.owner) for u, _ in CONDO_UNITS])
            InstrumentShare.objects.bulk_create(
                [InstrumentShare(instrument=deed, unit=u, percent=Decimal(pc))
                 for u, (_, pc) in zip(units, CONDO_UNITS)])
    for fy, rate in RATES:
        resolution_adopt(label=f"bench FY{fy}", adopted_on=date(fy - 1, 6, 1), effective_from=date(fy - 1, 7, 1),
                         eru_sqft=ERU_SQFT, rate_per_eru=Decimal(rate), small_residential_rate=Decimal(rate),
                         installments=INSTALLMENTS, interest_rate_percent=Decimal(12), demand_charge=Decimal(25),
                         blocks=list(TABLE_1_BLOCKS), acting_user=None)
    return facts


def expected(facts: Counter, fy: int) -> tuple[int, Decimal]:
    """(bills, total) the run of ``fy`` must issue, computed without the bill run: each parcel classified and
    priced by the rules (``stormwater.rules``) on the benchmark's own rates, not the stored resolution; a
    condominium's fee is one bill per unit whose amounts add up to it."""
    from stormwater.rules.classes import PropertyClass, classify
    from stormwater.rules.fees import DEFAULT_BLOCKS, FeeTerms, compute_fee

    rate = Decimal(dict(RATES)[fy])
    terms = FeeTerms(eru_sqft=ERU_SQFT, rate_per_eru=rate, small_residential_rate=rate, blocks=DEFAULT_BLOCKS,
                     installments=INSTALLMENTS)
    bills, total = 0, Decimal("0.00")
    for (use, units, imp, condo), count in facts.items():
        cls = classify(land_use_code=use, dwelling_units=units).property_class
        fee = compute_fee(property_class=cls, impervious_sqft=imp, terms=terms).annual_fee
        if cls is PropertyClass.EXEMPT or not fee:
            continue
        bills += count * (len(CONDO_UNITS) if condo else 1)
        total += count * fee
    return bills, total


def check(run_id: int, out: dict, want: tuple[int, Decimal]) -> list[str]:
    """The run's figures against ``expected`` and against each other (read back from the database) → what differs."""
    from django.db.models import Count, Sum

    from stormwater.utility.models import Bill, Installment, LedgerEntry

    bills, total = want
    got_bills = Bill.objects.filter(run_id=run_id).aggregate(n=Count("id"), s=Sum("amount"))
    got_inst = Installment.all_objects.filter(bill__run_id=run_id).aggregate(n=Count("id"), s=Sum("amount"))
    got_charges = LedgerEntry.objects.filter(bill__run_id=run_id, kind="charge").aggregate(n=Count("id"),
                                                                                           s=Sum("amount"))
    cents = Decimal("0.01")  # SQLite sums decimals as floating point: compared to the cent
    for agg in (got_bills, got_inst, got_charges):
        agg["s"] = None if agg["s"] is None else Decimal(agg["s"]).quantize(cents)
    wrong = []
    for what, value, should in (
            ("bills issued", out["bills"], bills), ("total issued", Decimal(out["total"]), total),
            ("problems", out["problems"], 0), ("bills in the database", got_bills["n"], bills),
            ("sum of the bills", got_bills["s"], total), ("installments", got_inst["n"], INSTALLMENTS * bills),
            ("sum of the installments", got_inst["s"], total),
            ("charges posted", got_charges["n"], INSTALLMENTS * bills),
            ("sum of the charges posted", got_charges["s"], total)):
        if value != should:
            wrong.append(f"{what} {value} (expected {should})")
    return wrong


def issue(fy: int, issue_date: date) -> dict:
    from stormwater.utility.models import BillRun
    from stormwater.utility.services import bill_run_approve, bill_run_prepare, bill_run_start, fiscal_year

    label, start, end = fiscal_year(fy)
    t0 = time.perf_counter()
    run, _ = bill_run_start(period_label=label, period_start=start, period_end=end, issue_date=issue_date,
                            acting_user=None, issue_when_ready=True)
    prepared = bill_run_prepare(run=run)
    t1 = time.perf_counter()
    issued = bill_run_approve(run=BillRun.objects.get(pk=run.pk), acting_user=None)
    t2 = time.perf_counter()
    return {"run": run.pk, "bills": issued.bills, "problems": len(prepared.problems), "prepare_s": t1 - t0,
            "approve_s": t2 - t1, "total": str(issued.total)}


def _child(fy: int, issue_date: date, conn) -> None:
    import django

    django.setup()
    t0 = time.perf_counter()
    out = issue(fy, issue_date)
    out["run_s"] = time.perf_counter() - t0
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    conn.send(out)
    conn.close()


def run_in_child(fy: int, issue_date: date) -> dict:
    """The timed run in a fresh process (fork after closing the parent's connections): its peak RSS is its own."""
    from django.db import connections

    connections.close_all()
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe()
    p = ctx.Process(target=_child, args=(fy, issue_date, child))
    p.start()
    out = parent.recv()
    p.join()
    if p.exitcode:
        raise SystemExit(f"the bill run process failed ({p.exitcode})")
    return out


# --- baseline ------------------------------------------------------------------------------------------------

def _tables(first_year: bool):
    from stormwater.utility.models import Account, Bill, Installment, LedgerEntry

    models = ([Account] if first_year else []) + [Bill, Installment, LedgerEntry]
    return [(m._meta.db_table, [f.column for f in m._meta.concrete_fields]) for m in models]


def _selects(run_id: int, first_year: bool) -> dict[str, str]:
    from stormwater.utility.models import Account, Bill, Installment, LedgerEntry

    b, i, le, a = (m._meta.db_table for m in (Bill, Installment, LedgerEntry, Account))
    out = {b: f"SELECT * FROM {b} WHERE run_id = {run_id}",
           i: f"SELECT i.* FROM {i} i JOIN {b} b ON b.id = i.bill_id WHERE b.run_id = {run_id}",
           le: f"SELECT e.* FROM {le} e JOIN {b} b ON b.id = e.bill_id WHERE b.run_id = {run_id}"}
    if first_year:
        out[a] = f"SELECT * FROM {a} WHERE id IN (SELECT account_id FROM {b} WHERE run_id = {run_id})"
    return out


def baseline_postgres(run_id: int, first_year: bool) -> float:
    """COPY the run's rows into clones of their tables: the same indexes, unique and check constraints, no
    foreign keys (``LIKE … INCLUDING ALL`` copies no foreign key; the floor of writing the rows, as documented)."""
    from django.db import connection

    tables = _tables(first_year)
    names = {t: f"bench_{t}" for t, _ in tables}
    files = {}
    with connection.cursor() as c:
        for t, cols in tables:
            c.execute(f"CREATE TABLE {names[t]} (LIKE {t} INCLUDING ALL)")
            c.execute("SELECT count(*) FROM pg_constraint WHERE conrelid = %s::regclass AND contype = 'f'",
                      [names[t]])
            assert c.fetchone()[0] == 0, f"{names[t]} has a foreign key: the baseline is indexed COPY without"
            f = tempfile.TemporaryFile()
            with c.cursor.copy(f"COPY ({_selects(run_id, first_year)[t]}) TO STDOUT") as cp:
                for block in cp:
                    f.write(block)
            f.seek(0)
            files[t] = f
    t0 = time.perf_counter()
    with connection.cursor() as c:
        c.execute("BEGIN")
        for t, cols in tables:
            with c.cursor.copy(f"COPY {names[t]} FROM STDIN") as cp:
                while data := files[t].read(1 << 20):
                    cp.write(data)
        c.execute("COMMIT")
    elapsed = time.perf_counter() - t0
    with connection.cursor() as c:
        for t, _ in reversed(tables):
            c.execute(f"DROP TABLE {names[t]}")
    return elapsed


def baseline_sqlite(run_id: int, first_year: bool) -> float:
    """One prepared executemany INSERT per table into clones: the same DDL and indexes, no foreign keys (as on
    PostgreSQL)."""
    import re

    from django.db import connection

    tables = _tables(first_year)
    names = {t: f"bench_{t}" for t, _ in tables}
    connection.ensure_connection()
    raw = connection.connection
    for t, _ in tables:
        for (sql,) in raw.execute("SELECT sql FROM sqlite_master WHERE tbl_name = ? AND sql IS NOT NULL "
                                  "AND type IN ('table', 'index') ORDER BY type = 'index'", [t]).fetchall():
            for orig, clone in names.items():
                sql = re.sub(rf'"{orig}"', f'"{clone}"', sql)
            sql = re.sub(r'(CREATE (?:UNIQUE )?INDEX )"([^"]+)"', r'\1"bench_\2"', sql)
            sql = re.sub(r'\s+REFERENCES\s+"[^"]+"\s*\("[^"]+"\)(\s+DEFERRABLE INITIALLY DEFERRED)?', "", sql)
            raw.execute(sql)
        fks = raw.execute(f'PRAGMA foreign_key_list("{names[t]}")').fetchall()
        assert not fks, f"{names[t]} has a foreign key: the baseline is indexed inserts without"
    raw.commit()
    files = {}
    for t, cols in tables:  # read first (into a file: the baseline times the writing only)
        src = raw.execute(_selects(run_id, first_year)[t].replace("SELECT *", f"SELECT {', '.join(cols)}")
                          .replace("SELECT i.*", "SELECT " + ", ".join(f"i.{c}" for c in cols))
                          .replace("SELECT e.*", "SELECT " + ", ".join(f"e.{c}" for c in cols)))
        f = files[t] = tempfile.TemporaryFile()
        while rows := src.fetchmany(BATCH):
            pickle.dump(rows, f)
        f.seek(0)
    t0 = time.perf_counter()
    raw.execute("BEGIN")
    for t, cols in tables:
        marks = ", ".join("?" * len(cols))
        ins = f"INSERT INTO {names[t]} ({', '.join(cols)}) VALUES ({marks})"
        while True:
            try:
                raw.executemany(ins, pickle.load(files[t]))
            except EOFError:
                break
    raw.execute("COMMIT")
    elapsed = time.perf_counter() - t0
    for t, _ in reversed(tables):
        raw.execute(f"DROP TABLE {names[t]}")
    raw.commit()
    return elapsed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parcels", type=int, default=100_000)
    ap.add_argument("--first-year", action="store_true", help="time the first run (accounts created) instead")
    args = ap.parse_args()
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from stormwater.parcels.models import Parcel

    print(f"database: {connection.vendor}", flush=True)
    call_command("migrate", verbosity=0)
    if Parcel.objects.exists():
        print("database not empty: use a fresh one (bin/pg-temp, or a new STORMWATER_DATA_DIR)", file=sys.stderr)
        return 2
    n = args.parcels
    t0 = time.perf_counter()
    facts = setup_town(n)
    print(f"set-up: {n:,} parcels in {time.perf_counter() - t0:.1f} s", flush=True)
    baseline = baseline_postgres if connection.vendor == "postgresql" else baseline_sqlite
    what = "COPY" if connection.vendor == "postgresql" else "executemany INSERT"
    bases, wrong = [], []
    if not args.first_year:
        t0 = time.perf_counter()
        prior = run_in_child(2026, date(2025, 9, 15))
        print(f"FY2026 run (untimed set-up): {prior['bills']:,} bills in {time.perf_counter() - t0:.1f} s", flush=True)
        wrong += [f"FY2026: {w}" for w in check(prior["run"], prior, expected(facts, 2026))]
        # The baseline is taken before and after the timed run (FY2026's rows are the same shape and number), so
        # the two bracket it in time on a machine whose load changes.
        bases.append(baseline(prior["run"], False))
        print(f"baseline before: {what} of FY2026's rows into indexed copies of the tables (no foreign keys): "
              f"{bases[-1]:.2f} s", flush=True)
    out = run_in_child(2027, date(2026, 9, 15))
    run_id = out["run"]
    want = expected(facts, 2027)
    wrong += [f"FY2027: {w}" for w in check(run_id, out, want)]
    print(f"bill run FY2027: {out['bills']:,} bills, {INSTALLMENTS * out['bills']:,} installments and charges, "
          f"{out['problems']:,} problems, total ${out['total']} in {out['run_s']:.2f} s "
          f"(proof {out['prepare_s']:.2f} s, approval {out['approve_s']:.2f} s); "
          f"peak RSS of the run's process {out['peak_rss_mb']:.0f} MB", flush=True)
    bases.append(baseline(run_id, args.first_year))
    print(f"baseline after: {what} of the same rows into indexed copies of the tables (no foreign keys): "
          f"{bases[-1]:.2f} s", flush=True)
    base = sum(bases) / len(bases)
    target = " (target ≤ 2×)" if connection.vendor == "postgresql" else ""
    print(f"RESULT {connection.vendor} parcels={n} bills={out['bills']} run_s={out['run_s']:.2f} "
          f"baseline_s={base:.2f} ratio={out['run_s'] / base:.2f}×{target} peak_rss_mb={out['peak_rss_mb']:.0f} "
          f"bills_per_s={out['bills'] / out['run_s']:,.0f}")
    if wrong:
        print("correctness: FAILED — " + "; ".join(wrong))
        return 1
    print(f"correctness: ok — {want[0]:,} bills, total ${want[1]} as priced by the rules without the bill run; the "
          "bills, installments and charges posted add up to it" + ("" if args.first_year else " (FY2026 too)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
