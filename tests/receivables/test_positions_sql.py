"""The set-based positions (receivables/positions.py) agree to the cent with the per-account reference
(receivables/ledger.py ``account_position``) over randomly generated ledgers: payments, partial payments,
overpayments, reversals, demands, back bills, credit balances applied, abatements refunded or kept as
credit, liens, hand-posted interest, due dates on weekends and holidays, several interest rates.

Seeded (deterministic): a failure names the seed, the account and the date, to replay it.
Runs on SQLite and on PostgreSQL (bin/pg-temp).
"""
from __future__ import annotations

import random
from datetime import date, timedelta
from decimal import Decimal as D

import pytest

from stormwater.parcels.models import Owner, Parcel
from stormwater.receivables import services as rs
from stormwater.receivables.ledger import account_position
from stormwater.receivables.models import Demand, Payment
from stormwater.receivables.positions import (AGING_BUCKETS, AccountFilter, AccountReport, installment_figures,
                                              positions_cte)
from stormwater.rules.interest import interest_start
from stormwater.rules.money import ZERO
from stormwater.utility.models import Account, Bill, BillRun, Component, EntryKind, Installment, LedgerEntry
from stormwater.utility.services import resolution_adopt

# A Saturday, Columbus Day (Mon Oct 12 2026), Christmas 2026 (Friday), a Sunday, plain weekdays.
DUE_DATES = [date(2026, 10, 10), date(2026, 10, 12), date(2026, 12, 25), date(2027, 1, 17), date(2026, 10, 13),
             date(2026, 11, 30), date(2027, 3, 1), date(2025, 8, 30), date(2027, 5, 31)]
RATES = [D("12"), D("10.5"), D("18.125"), D("0")]


def _resolutions():
    out = []
    for i, rate in enumerate(RATES):
        out.append(resolution_adopt(
            label=f"r{i}", adopted_on=date(2024, 6, 1), effective_from=date(2024, 7, 1) + timedelta(days=i),
            eru_sqft=D(3400), rate_per_eru=D("53.16"), small_residential_rate=D("53.16"), installments=2,
            interest_rate_percent=rate, demand_charge=D("25") + i, blocks=[(1, None, D(1))], acting_user=None))
    return out


def _bill(rng, account, res, n, *, back=False):
    issue = date(2025, 7, 1) + timedelta(days=rng.randrange(0, 560))
    run = BillRun.objects.create(period_label=f"P{account.pk}-{n}", period_start=issue, period_end=issue,
                                 issue_date=issue, resolution=res)
    amount = D(rng.choice([26, 53, 1414, 7, 250, 99999])) + D(rng.randrange(0, 100)) / 100
    parts = 1 if back else rng.choice([1, 2, 4])
    bill = Bill.objects.create(
        number=f"B{account.pk}-{n}", run=run, account=account, parcel=account.parcel, period_start=issue,
        period_end=issue + timedelta(days=364), issue_date=issue, owner_name="x", mailing_address="x",
        property_class="nonresidential", impervious_sqft=D(1), erus=1, gross_fee=amount, amount=amount,
        explanation="x", is_back_bill=back)
    each = (amount / parts).quantize(D("0.01"))
    for seq in range(1, parts + 1):
        amt = each if seq < parts else amount - each * (parts - 1)
        inst_issue = issue + timedelta(days=91 * (seq - 1))
        due = rng.choice(DUE_DATES) if rng.random() < 0.4 else inst_issue + timedelta(days=30)
        inst = Installment.objects.create(bill=bill, seq=seq, amount=amt, issue_date=inst_issue, due_date=due)
        LedgerEntry.objects.create(account=account, kind=EntryKind.CHARGE, amount=amt, effective_on=inst_issue,
                                   bill=bill, installment=inst)
    return bill


def _day(rng):
    return date(2025, 7, 1) + timedelta(days=rng.randrange(0, 690))


def _random_account(rng, resolutions, i):
    owner = Owner.objects.create(name=f"Owner {i}", mailing_address="x")
    parcel = Parcel.objects.create(parcel_id=f"R-{i:04d}", address=f"{i} Random Rd", owner=owner,
                                   land_use_code="101", dwelling_units=1, lot_sqft=D(10000))
    account = Account.objects.create(number=f"SW-R-{i:04d}", parcel=parcel)
    bills = [_bill(rng, account, rng.choice(resolutions), n, back=rng.random() < 0.15)
             for n in range(rng.choice([0, 1, 1, 2, 3]))]
    for _ in range(rng.randrange(0, 9)):
        op = rng.random()
        on = _day(rng)
        try:
            if op < 0.35:
                amount = rng.choice([D("0.01"), D("10"), D("26.58"), D("500"), D("1500.33"), D("100000")])
                rs.payment_post(account=account, amount=amount, received_on=on, acting_user=None)
            elif op < 0.45:
                pays = list(Payment.objects.filter(account=account, reversal__isnull=True))
                if pays:
                    p = rng.choice(pays)
                    rs.payment_reverse(payment=p, reason="NSF", acting_user=None,
                                       reversed_on=p.received_on + timedelta(days=rng.randrange(0, 60)))
            elif op < 0.6:
                rs.demand_serve(account=account, served_on=on, acting_user=None)
            elif op < 0.67:
                rs.credit_apply(account=account, on=on, acting_user=None)
            elif op < 0.75 and bills:
                b = rng.choice(bills)
                rs.abatement_post(bill=b, amount=min(b.amount, D(rng.randrange(1, 600))), on=on,
                                  disposition=rng.choice(["refund", "credit"]), acting_user=None)
            elif op < 0.82:
                ds = list(Demand.objects.filter(account=account, commitment_line__isnull=True))
                if ds:
                    rs.commitment_create(tax_fiscal_year=2028, demands=ds[:1], acting_user=None,
                                         committed_on=ds[0].served_on + timedelta(days=rng.randrange(15, 90)))
            elif op < 0.9 and bills:
                # Hand-posted entries a clerk could make: interest charged, a refund, a reversal of a charge.
                inst = rng.choice(list(Installment.objects.filter(bill__in=bills).order_by("bill_id", "seq")))
                kind = rng.choice(["interest", "refund", "revcharge"])
                if kind == "interest":
                    LedgerEntry.objects.create(account=account, kind=EntryKind.INTEREST, component=Component.INTEREST,
                                               amount=D(rng.randrange(1, 900)) / 100, effective_on=on,
                                               bill=inst.bill, installment=inst)
                elif kind == "refund":
                    LedgerEntry.objects.create(account=account, kind=EntryKind.REFUND, amount=D("5.00"),
                                               effective_on=on, bill=inst.bill, installment=inst)
                else:
                    charge = inst.entries.filter(kind=EntryKind.CHARGE).first()
                    LedgerEntry.objects.create(account=account, kind=EntryKind.REVERSAL, amount=-charge.amount,
                                               effective_on=on, bill=inst.bill, installment=inst, reverses=charge)
            else:
                rs.payment_post(account=account, amount=D(rng.randrange(1, 20000)) / 100, received_on=on,
                                acting_user=None)
        except rs.CollectionError:
            pass
    return account


def reference_aging(pos, as_of):
    """Today's per-account aging (receivables.selectors before the set-based rewrite): the expectation."""
    b = {k: ZERO for k in AGING_BUCKETS}
    oldest = None
    for d in pos.dues:
        owed = d.total
        if owed <= 0 or not d.issued:
            continue
        start = interest_start(d.installment.due_date)
        late = (as_of - start).days + 1 if as_of >= start else 0
        key = ("current" if late <= 0 else "1-30" if late <= 30 else "31-60" if late <= 60
               else "61-90" if late <= 90 else "over 90")
        b[key] += owed
        if late > 0 and (oldest is None or d.installment.due_date < oldest):
            oldest = d.installment.due_date
    return b, oldest


AS_OF = [date(2025, 6, 30), date(2025, 9, 1), date(2026, 10, 10), date(2026, 10, 13), date(2026, 10, 14),
         date(2026, 12, 27), date(2027, 1, 1), date(2027, 5, 31), date(2027, 6, 1), date(2028, 2, 29)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_set_based_positions_agree_with_the_reference_to_the_cent(db, seed):
    rng = random.Random(seed)
    resolutions = _resolutions()
    accounts = [_random_account(rng, resolutions, seed * 1000 + i) for i in range(40)]
    ids = [a.pk for a in accounts]
    assert LedgerEntry.objects.filter(kind=EntryKind.REVERSAL).exists()
    assert LedgerEntry.objects.filter(kind=EntryKind.LIEN).exists() or seed != 1
    for as_of in AS_OF + [_day(rng) for _ in range(4)]:
        report = {r.account_id: r for r in AccountReport("all", as_of=as_of, accounts=AccountFilter(ids=ids))}
        insts = installment_figures(as_of, AccountFilter(ids=ids))
        for a in accounts:
            where = f"seed {seed}, account {a.number}, as of {as_of}"
            pos = account_position(a, as_of=as_of)
            got = [(f.inst_id, f.principal, f.interest, f.unposted, f.demand) for f in insts.get(a.pk, [])]
            want = [(d.installment.pk, d.principal, d.interest_posted, d.interest_accrued, d.demand) for d in pos.dues]
            assert got == want, where
            r = report.get(a.pk)
            if r is None:  # no entries and no installments at all
                assert pos.total == 0 and not pos.dues, where
                continue
            buckets, oldest = reference_aging(pos, as_of)
            assert (r.principal, r.interest, r.demand, r.credit, r.total) == (
                pos.principal, pos.interest, pos.demand, pos.credit, pos.total), where
            assert (r.buckets, r.oldest_due, r.overdue) == (buckets, oldest, bool(pos.overdue(as_of))), where


def test_interest_rounds_half_up_once_like_rules_interest(db):
    """$100.00 at 12 % for 73 days is exactly $2.40; $1.52 for 1 day is 0.0049972…¢ → 0; a balance whose
    interest is exactly half a cent rounds up (rules.money.round_cents), in SQL as in Decimal."""
    res = _resolutions()[0]
    owner = Owner.objects.create(name="O", mailing_address="x")
    parcel = Parcel.objects.create(parcel_id="H-1", address="1 Half St", owner=owner, land_use_code="101",
                                   dwelling_units=1)
    account = Account.objects.create(number="SW-H-1", parcel=parcel)
    run = BillRun.objects.create(period_label="H", period_start=date(2026, 1, 1), period_end=date(2026, 12, 31),
                                 issue_date=date(2026, 1, 5), resolution=res)
    bill = Bill.objects.create(number="H-1", run=run, account=account, parcel=parcel, period_start=date(2026, 1, 1),
                               period_end=date(2026, 12, 31), issue_date=date(2026, 1, 5), owner_name="x",
                               mailing_address="x", property_class="nonresidential", impervious_sqft=D(1), erus=1,
                               gross_fee=D("0.73"), amount=D("0.73"), explanation="x")
    # 0.73 × 12 % × 25 days / 365 = 0.006 (0.6¢ → 1¢); 0.73 × 12 % / 365 × 1 day = 0.00024 → 0
    inst = Installment.objects.create(bill=bill, seq=1, amount=D("0.73"), issue_date=date(2026, 1, 5),
                                      due_date=date(2026, 2, 4))
    LedgerEntry.objects.create(account=account, kind=EntryKind.CHARGE, amount=D("0.73"), effective_on=date(2026, 1, 5),
                               bill=bill, installment=inst)
    for days in range(1, 400, 7):
        as_of = date(2026, 2, 4) + timedelta(days=days)
        ref = account_position(account, as_of=as_of).dues[0].interest_accrued
        got = installment_figures(as_of, AccountFilter(ids=[account.pk]))[account.pk][0].unposted
        assert got == ref, as_of


def test_a_principal_below_zero_for_some_days_earns_no_interest_those_days(db):
    """Paid in full by Jan 5, then abated $60 on Jan 10 and the $60 refunded only on Jan 20 (the principal
    is −$60 for ten days), then $30 paid again on Jan 25 (−$30). Interest never runs on less than zero (the reference clips each day), so the closed
    form (Σ change × days) would be wrong here: the SQL counts such an installment day by day."""
    from django.db import connection

    res = _resolutions()[0]
    owner = Owner.objects.create(name="O", mailing_address="x")
    parcel = Parcel.objects.create(parcel_id="N-1", address="1 Below St", owner=owner, land_use_code="101",
                                   dwelling_units=1)
    account = Account.objects.create(number="SW-N-1", parcel=parcel)
    run = BillRun.objects.create(period_label="N", period_start=date(2026, 7, 1), period_end=date(2027, 6, 30),
                                 issue_date=date(2026, 9, 1), resolution=res)
    bill = Bill.objects.create(number="N-1", run=run, account=account, parcel=parcel, period_start=date(2026, 7, 1),
                               period_end=date(2027, 6, 30), issue_date=date(2026, 9, 1), owner_name="x",
                               mailing_address="x", property_class="nonresidential", impervious_sqft=D(1), erus=1,
                               gross_fee=D(100), amount=D(100), explanation="x")
    inst = Installment.objects.create(bill=bill, seq=1, amount=D(100), issue_date=date(2026, 9, 1),
                                      due_date=date(2026, 10, 1))
    for kind, amount, on in (("charge", "100", date(2026, 9, 1)), ("payment", "-40", date(2026, 11, 1)),
                             ("payment", "-60", date(2027, 1, 5)), ("abatement", "-60", date(2027, 1, 10)),
                             ("refund", "60", date(2027, 1, 20)), ("payment", "-30", date(2027, 1, 25))):
        LedgerEntry.objects.create(account=account, kind=kind, amount=D(amount), effective_on=on, bill=bill,
                                   installment=inst)
    as_of = date(2027, 3, 1)
    ref = account_position(account, as_of=as_of).dues[0]
    got = installment_figures(as_of, AccountFilter(ids=[account.pk]))[account.pk][0]
    # $100 Oct 2–31 (30 days) + $60 Nov 1 – Jan 4 (65 days) = 6,900 dollar-days; then $0, −$60 for ten days,
    # $0, −$30 from Jan 25: nothing. 6,900 × 12 % / 365 = 2.2685 → $2.27. The closed form alone would take
    # the days below zero off (600 + 1,080 dollar-days) and say $1.72.
    assert (got.principal, got.unposted) == (ref.principal, ref.interest_accrued) == (D("-30.00"), D("2.27"))
    cte, params = positions_cte(as_of, AccountFilter(ids=[account.pk]))
    with connection.cursor() as c:
        c.execute(cte + "\nSELECT COUNT(*) FROM exc", params)
        assert c.fetchone()[0] == 1
