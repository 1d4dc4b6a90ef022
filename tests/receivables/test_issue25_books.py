"""Issue 25 ("Books the town can stake its name on"): after any sequence of payments and reversals no bucket of an
account is below zero — principal, interest and demand charge of each installment, and the unapplied credit — and
its balance is the sum of its ledger (with the interest earned and not yet posted) and what is due now.

The report's story, on the owner's house (FY2027: $53.16 in two installments of $26.58, the first issued Thu Sep 10,
2026, due Tue Oct 13, 2026; the second issued Mar 10, 2027, due Fri Apr 9, 2027): pay $3.16, a demand is served,
pay $100 (leaving a credit), the $3.16 check comes back unpaid (the credit pays what it paid again), then the $100 is
reversed. Before: principal $50.00 and a credit of −$3.16 were left, the balance $3.16 above "due now", interest ran
on $50.00 and a lien commitment missed the $3.16.

Ch. 295 Art. IV billing ¶C (interest on the unpaid balance), ¶D (demand, commitment of the amount due).
"""
from __future__ import annotations

import random
from datetime import date, timedelta
from decimal import Decimal as D

import pytest

from stormwater.cashier.returns import returned_check_record
from stormwater.receivables.ledger import account_position
from stormwater.receivables.models import Payment
from stormwater.receivables.positions import AccountFilter, AccountReport, installment_figures
from stormwater.receivables.selectors import pay_offer
from stormwater.receivables.services import (commitment_create, credit_apply, demand_serve, payment_post,
                                             payment_reverse)
from stormwater.rules.interest import accrued_interest
from stormwater.rules.money import ZERO
from stormwater.utility.models import Account, Component, LedgerEntry

HALF = D("26.58")


def house(billed) -> Account:
    return Account.objects.get(parcel=billed["house"], unit=None)


def assert_books(account: Account, on: date) -> None:
    """The books of one account on one day: no bucket below zero; the balance is the ledger's sum (with the interest
    earned and not yet posted) and, once every installment is issued, what is due now; the set-based figures
    (receivables/positions.py) say the same as the reference reading."""
    pos = account_position(account, as_of=on)
    for d in pos.dues:
        for comp in (Component.PRINCIPAL, Component.INTEREST, Component.DEMAND):
            assert d.buckets[comp] >= 0, (on, d.installment, comp, d.buckets[comp])
        assert d.interest_accrued >= 0
    assert pos.credit >= 0, (on, pos.credit)
    ledger = sum((e.amount for e in LedgerEntry.objects.filter(account=account, effective_on__lte=on)), ZERO)
    assert pos.total == ledger + sum((d.interest_accrued for d in pos.dues), ZERO)
    # What the issued installments owe, less what was paid ahead on those not yet issued (their charge is posted
    # on their issue date), less the credit balance.
    owed = sum((d.total if d.issued else d.total - d.installment.amount for d in pos.dues), ZERO)
    assert pos.total == owed - pos.credit, (on, pos.total, owed, pos.credit)
    if all(d.issued for d in pos.dues):
        offer = pay_offer(account, as_of=on)
        if pos.total >= 0:
            assert offer.due_now == offer.balance == pos.total, (on, offer, pos.total)
        else:
            assert offer.due_now == 0 and offer.credit == -pos.total
    sql = installment_figures(on, AccountFilter(ids=[account.pk])).get(account.pk, [])
    assert [(f.inst_id, f.principal, f.interest, f.unposted, f.demand) for f in sql] == \
        [(d.installment.pk, d.principal, d.interest_posted, d.interest_accrued, d.demand) for d in pos.dues]
    rep = {r.account_id: r for r in AccountReport("all", as_of=on, accounts=AccountFilter(ids=[account.pk]))}
    if account.pk in rep:
        r = rep[account.pk]
        assert (r.principal, r.interest, r.demand, r.credit, r.total) == \
            (pos.principal, pos.interest, pos.demand, pos.credit, pos.total)


def _never_paid_interest(due: date, on: date) -> D:
    return accrued_interest(principal=HALF, reductions=[], due_date=due, as_of=on, rate_percent=D(12))


def test_two_reversals_in_a_row_leave_no_negative_credit_and_the_balance_is_due_now(billed, personas):
    a = house(billed)
    small = payment_post(account=a, amount=D("3.16"), received_on=date(2026, 10, 1), reference="1001",
                         acting_user=None)
    demand_serve(account=a, served_on=date(2026, 11, 2), acting_user=personas["collector"])
    big = payment_post(account=a, amount=D("100.00"), received_on=date(2027, 4, 1), reference="1002",
                       acting_user=None)
    assert account_position(a, as_of=date(2027, 4, 1)).credit > 0  # the $100 left a credit balance
    returned_check_record(payment=small, reason="NSF", reversed_on=date(2027, 4, 15), acting_user=personas["collector"])
    assert_books(a, date(2027, 4, 15))
    payment_reverse(payment=big, reason="Stop payment", reversed_on=date(2027, 5, 3), acting_user=personas["collector"])
    on = date(2027, 5, 3)
    pos = account_position(a, as_of=on)
    # Neither payment stands: the whole fee is owed, with the demand charge, and interest as if nothing was paid.
    assert pos.credit == 0
    assert pos.principal == D("53.16") and pos.demand == D("25.00")
    first, second = pos.dues
    assert first.interest == _never_paid_interest(date(2026, 10, 13), on)
    assert second.interest == _never_paid_interest(date(2027, 4, 9), on)
    assert pay_offer(a, as_of=on).due_now == pos.total == D("53.16") + D("25.00") + pos.interest
    for day in (on, date(2027, 5, 20), date(2027, 6, 1)):
        assert_books(a, day)
    # A lien commitment takes everything that is owed: nothing is left behind on the unapplied credit.
    demand = a.demands.get()
    line = commitment_create(tax_fiscal_year=2028, committed_on=date(2027, 5, 28), demands=[demand],
                             acting_user=personas["collector"]).lines.get()
    assert line.principal == D("53.16") and line.demand_charges == D("25.00")
    after = account_position(a, as_of=date(2027, 5, 28))
    assert after.total == 0 and after.credit == 0
    assert_books(a, date(2027, 6, 1))


def test_a_reversal_withdraws_only_the_credit_that_was_spent(billed, personas):
    """Two payments make one credit balance; a reversal spends it on the installments (one credit application each);
    reversing one of the two withdraws only what the other no longer covers — all of the latest application and a
    part of the one before — and interest runs on the principal as it is, no more."""
    a = house(billed)
    whole = payment_post(account=a, amount=D("53.16"), received_on=date(2026, 9, 20), acting_user=None)
    p2 = payment_post(account=a, amount=D("15.00"), received_on=date(2026, 9, 22), acting_user=None)
    payment_post(account=a, amount=D("15.00"), received_on=date(2026, 9, 24), acting_user=None)
    payment_reverse(payment=whole, reason="NSF", reversed_on=date(2026, 10, 1), acting_user=None)
    # The $30 credit now pays $26.58 of the first installment and $3.42 of the second.
    pos = account_position(a, as_of=date(2026, 10, 1))
    assert pos.credit == 0 and [d.principal for d in pos.dues] == [D("0.00"), D("23.16")]
    payment_reverse(payment=p2, reason="NSF", reversed_on=date(2026, 10, 5), acting_user=None)
    pos = account_position(a, as_of=date(2026, 10, 5))
    assert pos.credit == 0
    assert [d.principal for d in pos.dues] == [D("11.58"), HALF]  # $15 of the year stands: the third payment
    # Interest from the day after the (rolled) due date on the $11.58 the first installment still owes.
    on = date(2027, 3, 1)
    first = account_position(a, as_of=on).dues[0]
    assert first.interest == accrued_interest(principal=D("11.58"), reductions=[], due_date=date(2026, 10, 13),
                                              as_of=on, rate_percent=D(12))
    for day in (date(2026, 10, 5), date(2026, 10, 20), on, date(2027, 4, 20), date(2027, 6, 1)):
        assert_books(a, day)


@pytest.mark.parametrize("seed", range(8, 19))  # 8, 12, 13, 15–18 broke the books before issue 25
def test_any_sequence_of_payments_and_reversals_keeps_the_books(billed, personas, seed):
    """Payments of any size (some overpaying), demands, credit balances applied and reversals in any order, day
    after day: after each act and on later days, the books hold (``assert_books``)."""
    rng = random.Random(seed)
    a = house(billed)
    day = date(2026, 9, 12)
    for _ in range(14):
        day += timedelta(days=rng.randrange(1, 25))
        if day > date(2027, 6, 1):
            break
        op = rng.random()
        if op < 0.45:
            payment_post(account=a, amount=rng.choice([D("3.16"), D("10.00"), HALF, D("40.00"), D("100.00")]),
                         received_on=day, confirm_duplicate=True, acting_user=None)
        elif op < 0.85:
            pays = list(Payment.objects.filter(account=a, reversal__isnull=True))
            if pays:
                payment_reverse(payment=rng.choice(pays), reason="NSF", reversed_on=day, acting_user=None)
        elif op < 0.95:
            try:
                demand_serve(account=a, served_on=day, acting_user=None)
            except Exception:  # noqa: BLE001 - not yet overdue, or one outstanding: the story goes on
                pass
        else:
            credit_apply(account=a, on=day, acting_user=None)
        assert_books(a, day)
    for later in (day + timedelta(days=10), date(2027, 6, 1)):
        if later >= day:
            assert_books(a, later)


def test_a_voided_runs_later_installment_is_owed_by_no_one_in_the_reports_and_the_lockbox(billed, personas, at):
    """Found by the invariant machine (tests/receivables/test_books_invariants.py): a voided run's bills count
    nowhere (``Bill.objects``), but the set-based positions (receivables/positions.py) still read the second
    installment of a voided bill — its charge counts from the bill's issue, its reversal (dated the charge's own day,
    Mar 10, 2027) only from then — so the reports showed $26.58 of principal on an account that owes nothing, and a
    lockbox payment was applied to the voided bill. Ch. 295 Art. IV ¶B (a bill voided is owed by no one);
    DESIGN.md (the reports read what the account's reading reads)."""
    from stormwater.receivables.lockbox import payment_batch_post
    from stormwater.utility.models import Bill, BillRun, LedgerEntry
    from stormwater.utility.services import bill_run_issue, bill_run_void, fiscal_year

    a = house(billed)
    run = BillRun.objects.get()
    on = date(2026, 9, 20)
    at(date(2026, 9, 21))
    bill_run_void(run=run, reason="Wrong rate table", acting_user=personas["director"])
    rep = {r.account_id: r for r in AccountReport("all", as_of=on, accounts=AccountFilter(ids=[a.pk]))}
    assert (rep[a.pk].principal, rep[a.pk].total) == (ZERO, ZERO)
    assert installment_figures(on, AccountFilter(ids=[a.pk])).get(a.pk, []) == []
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 21),
                   acting_user=None)
    live = Bill.objects.get(account=a)
    content = f"account,amount,received_on,reference\n{a.number},53.16,2026-09-21,7001\n".encode()
    payment_batch_post(filename="lockbox.csv", content=content, acting_user=None)
    paid = LedgerEntry.objects.filter(account=a, kind="payment")
    assert {e.bill_id for e in paid} == {live.pk}
    assert sum(e.amount for e in paid) == D("-53.16")
    assert_books(a, date(2026, 9, 21))
