"""Payments, interest, demands, liens and back bills (Ch. 295 Art. IV, billing and collection ¶A–¶D)."""
from datetime import date
from decimal import Decimal as D

import pytest
from django.db import connection

from stormwater.receivables.ledger import account_position
from stormwater.receivables.models import CommitmentLine, Payment, PaymentBatch
from stormwater.receivables.selectors import aging, commitment_candidates, delinquency, demand_candidates
from stormwater.receivables.services import (BatchRejected, CollectionError, back_bill_issue, commitment_create,
                                             demand_serve, lien_paid_record, payment_batch_post, payment_post,
                                             payment_reverse, period_close)
from stormwater.utility.models import Account, Bill, Component, EntryKind, LedgerEntry


def acct(parcel):
    return Account.objects.get(parcel=parcel, unit=None)


def test_payment_applies_demand_then_interest_then_principal(billed, personas):
    a = acct(billed["shops"])
    demand = demand_serve(account=a, served_on=date(2026, 11, 1), acting_user=personas["collector"])
    assert demand.demand_charge == D("25.00")
    assert demand.interest_due == D("8.83")  # 1,414.06 × 12 % × 19 days (Oct 14 – Nov 1) / 365
    p = payment_post(account=a, amount=D("30.00"), received_on=date(2026, 11, 5), acting_user=personas["collector"])
    parts = {e.component: e.amount for e in p.entries.all()}
    assert parts == {Component.DEMAND: D("-25.00"), Component.INTEREST: D("-5.00")}
    pos = account_position(a, as_of=date(2026, 11, 5))
    d1 = pos.dues[0]
    assert (d1.demand, d1.interest_posted, d1.principal) == (D("0.00"), D("5.69"), D("1414.06"))
    assert d1.interest_posted + D("5.00") == D("10.69")  # 23 days of interest through Nov 5


def test_oldest_installment_first_and_overpayment_stays_as_credit(billed, personas):
    a = acct(billed["house"])  # $53.16 in two installments of $26.58
    payment_post(account=a, amount=D("100.00"), received_on=date(2026, 10, 1), acting_user=None)
    pos = account_position(a, as_of=date(2027, 4, 1))
    assert [d.principal for d in pos.dues] == [D("0.00"), D("0.00")]
    assert pos.credit == D("46.84") and pos.total == D("-46.84")


def test_a_bounced_payment_is_reversed_exactly_and_interest_runs_as_if_unpaid(billed, personas):
    a = acct(billed["shops"])
    p = payment_post(account=a, amount=D("1414.06"), received_on=date(2026, 10, 1), acting_user=None)
    assert account_position(a, as_of=date(2026, 11, 15)).dues[0].total == D("0.00")
    payment_reverse(payment=p, reason="NSF check", reversed_on=date(2026, 11, 1), acting_user=personas["collector"])
    entries = LedgerEntry.objects.filter(payment=p)
    assert sum(e.amount for e in entries) == D("0.00") and entries.filter(kind=EntryKind.REVERSAL).count() == 1
    d1 = account_position(a, as_of=date(2026, 11, 15)).dues[0]
    assert d1.principal == D("1414.06") and d1.interest == D("15.34")  # 33 days from Oct 14
    with pytest.raises(CollectionError, match="already reversed"):
        payment_reverse(payment=p, reason="again", reversed_on=date(2026, 11, 2), acting_user=None)


def test_interest_is_reproducible_as_of_any_date(billed):
    a = acct(billed["shops"])
    payment_post(account=a, amount=D("400.00"), received_on=date(2026, 10, 24), acting_user=None)
    first = account_position(a, as_of=date(2026, 12, 1)).dues[0].interest
    payment_post(account=a, amount=D("10.00"), received_on=date(2027, 1, 15), acting_user=None)
    assert account_position(a, as_of=date(2026, 12, 1)).dues[0].interest == first


CSV_OK = ("account,amount,received_on,reference\n"
          "SW-01-01-1,26.58,2026-10-05,1001\n"
          "SW-02-01-1,1414.06,2026-10-06,1002\n")


def test_a_lockbox_file_posts_once(billed, personas):
    r = payment_batch_post(filename="lockbox-1005.csv", content=CSV_OK.encode(), acting_user=personas["collector"])
    assert r.posted == 2 and r.total == D("1440.64")
    again = payment_batch_post(filename="copy.csv", content=CSV_OK.encode(), acting_user=personas["collector"])
    assert again.already_posted and again.posted == 0
    assert Payment.objects.count() == 2 and PaymentBatch.objects.count() == 1


def test_a_file_with_bad_rows_posts_nothing_and_names_each_row(billed):
    bad = CSV_OK + "SW-99-99-9,10.00,2026-10-06,1003\nSW-01-01-2,-5.00,2026-10-06,1004\nSW-01-01-2,5,2026-13-01,1005\n"
    with pytest.raises(BatchRejected) as e:
        payment_batch_post(filename="bad.csv", content=bad.encode(), acting_user=None)
    msgs = e.value.errors  # row 4 (no such account) is no error: it would wait in suspense (issue 25)
    assert msgs[0].startswith("row 5: amount") and "row 6: received_on" in msgs[1] and len(msgs) == 2
    assert Payment.objects.count() == 0 and LedgerEntry.objects.filter(kind=EntryKind.PAYMENT).count() == 0
    with pytest.raises(BatchRejected, match="missing column"):
        payment_batch_post(filename="x.csv", content=b"acct,amt\n1,2\n", acting_user=None)


def test_bad_single_payments_are_refused(billed):
    a = acct(billed["house"])
    with pytest.raises(CollectionError, match="amount"):
        payment_post(account=a, amount=D("-1"), received_on=date(2026, 10, 1), acting_user=None)
    with pytest.raises(CollectionError, match="future"):
        payment_post(account=a, amount=D("1"), received_on=date(2027, 6, 2), acting_user=None)
    period_close(closed_through=date(2026, 12, 31), acting_user=None)
    with pytest.raises(CollectionError, match="closed period"):
        payment_post(account=a, amount=D("1"), received_on=date(2026, 12, 31), acting_user=None)
    payment_post(account=a, amount=D("1"), received_on=date(2027, 1, 2), acting_user=None)


def test_no_demand_before_interest_accrues(billed):
    a = acct(billed["shops"])
    with pytest.raises(CollectionError, match="no interest accrues yet"):
        demand_serve(account=a, served_on=date(2026, 10, 13), acting_user=None)
    assert a in [x for x, _ in demand_candidates(as_of=date(2026, 10, 14))]
    demand_serve(account=a, served_on=date(2026, 10, 14), acting_user=None)
    with pytest.raises(CollectionError, match="already outstanding"):
        demand_serve(account=a, served_on=date(2026, 10, 20), acting_user=None)


def test_commitment_14_days_after_mailing_moves_the_amounts_to_a_lien(billed, personas):
    a = acct(billed["shops"])
    d = demand_serve(account=a, served_on=date(2026, 11, 2), acting_user=None)
    assert commitment_candidates(as_of=date(2026, 11, 16)) == []  # 14 days after mailing not yet passed
    with pytest.raises(CollectionError, match="14 days after mailing"):
        commitment_create(tax_fiscal_year=2028, committed_on=date(2026, 11, 16), demands=[d], acting_user=None)
    assert [x for x, _ in commitment_candidates(as_of=date(2026, 11, 17))] == [d]
    c = commitment_create(tax_fiscal_year=2028, committed_on=date(2026, 11, 17), demands=[d],
                          acting_user=personas["collector"])
    line = c.lines.get()
    assert line.principal == D("1414.06") and line.demand_charges == D("25.00")
    assert line.interest == D("16.27")  # 35 days (Oct 14 – Nov 17) on 1,414.06 at 12 % = 16.271
    assert line.total == D("1455.33")
    assert account_position(a, as_of=date(2026, 11, 17)).dues[0].total == D("0.00")
    # Installment 2 (issued March 10) is not part of the lien.
    assert account_position(a, as_of=date(2027, 4, 1)).dues[1].principal == D("1414.05")
    lien_paid_record(line=line, paid_on=date(2027, 5, 1), amount=D("1455.33"), acting_user=None)
    assert CommitmentLine.objects.get().paid_on == date(2027, 5, 1)


def test_back_bill_at_most_one_year_and_no_late_charges(billed, personas):
    from stormwater.parcels.models import Parcel, ParcelImpervious

    p = Parcel.objects.create(parcel_id="06-01-1", address="6 Found St", owner=billed["shops"].owner,
                              land_use_code="340", lot_sqft=D(50000))
    ParcelImpervious.objects.create(survey=billed["survey"], parcel=p, impervious_sqft=D(6800))  # 2 ERUs
    with pytest.raises(CollectionError, match="at most one year of charges"):
        back_bill_issue(parcel=p, period_start=date(2025, 7, 1), period_end=date(2026, 12, 31),
                        issue_date=date(2027, 1, 4), acting_user=None)
    with pytest.raises(CollectionError, match="already billed"):
        back_bill_issue(parcel=billed["shops"], period_start=date(2026, 1, 1), period_end=date(2026, 12, 31),
                        issue_date=date(2027, 1, 4), acting_user=None)
    bill = back_bill_issue(parcel=p, period_start=date(2026, 7, 1), period_end=date(2027, 6, 30),
                           issue_date=date(2026, 12, 1), acting_user=personas["collector"])
    assert bill.is_back_bill and bill.amount == D("106.32") and "No interest or late charges" in bill.explanation
    a = bill.account
    pos = account_position(a, as_of=date(2027, 5, 30))
    assert pos.dues[0].interest == D("0.00") and pos.overdue(date(2027, 5, 30)) == []
    with pytest.raises(CollectionError, match="no interest accrues"):
        demand_serve(account=a, served_on=date(2027, 5, 30), acting_user=None)
    with pytest.raises(CollectionError, match="already back billed"):
        back_bill_issue(parcel=p, period_start=date(2025, 7, 1), period_end=date(2026, 6, 30),
                        issue_date=date(2027, 1, 4), acting_user=None)


def test_aging_and_delinquency(billed):
    rows = {r.account.parcel.parcel_id: r for r in aging(as_of=date(2026, 12, 31))}
    shops = rows["02-01-1"]
    assert shops.buckets["61-90"] > D("1414.06") and shops.oldest_due == date(2026, 10, 13)
    assert "02-01-1" in {r.account.parcel.parcel_id for r in delinquency(as_of=date(2026, 12, 31))}


@pytest.mark.django_db(transaction=True)
def test_two_clerks_posting_to_one_account_never_lose_or_double_a_payment(town, resolution, race):
    if connection.vendor != "postgresql":
        pytest.skip("row locks are a PostgreSQL matter; SQLite serializes writers")
    from stormwater.utility.services import bill_run_issue, fiscal_year

    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    a = acct(town["shops"])

    def clerk(ref):
        return lambda: payment_post(account=a, amount=D("100.00"), received_on=date(2026, 11, 5), reference=ref,
                                    acting_user=None)

    _, errors = race(*[clerk(f"r{i}") for i in range(4)])
    assert errors == []
    assert Payment.objects.count() == 4
    paid = -sum(e.amount for e in LedgerEntry.objects.filter(kind=EntryKind.PAYMENT))
    assert paid == D("400.00")
    # Interest was brought up to date once, not once per clerk.
    assert LedgerEntry.objects.filter(kind=EntryKind.INTEREST).count() == 1


def test_an_abatement_on_a_paid_bill_is_refunded_or_kept_as_credit(billed):
    from stormwater.receivables.services import abatement_post

    bill = Bill.objects.get(parcel=billed["shops"])
    a = bill.account
    payment_post(account=a, amount=bill.amount, received_on=date(2026, 10, 1), acting_user=None)
    abatement_post(bill=bill, amount=D("500.00"), on=date(2026, 11, 1), disposition="refund", acting_user=None)
    pos = account_position(a, as_of=date(2027, 4, 1))
    assert pos.total == D("0.00") and [d.principal for d in pos.dues] == [D("0.00"), D("0.00")]
    refunds = LedgerEntry.objects.filter(account=a, kind=EntryKind.REFUND)
    assert sum(e.amount for e in refunds) == D("500.00")

    house = Bill.objects.get(parcel=billed["house"])
    payment_post(account=house.account, amount=house.amount, received_on=date(2026, 10, 1), acting_user=None)
    abatement_post(bill=house, amount=D("10.00"), on=date(2026, 11, 1), disposition="credit", acting_user=None)
    pos = account_position(house.account, as_of=date(2027, 4, 1))
    assert pos.credit == D("10.00") and pos.total == D("-10.00")
    with pytest.raises(CollectionError, match="exceeds the bill"):
        abatement_post(bill=house, amount=D("99.00"), on=date(2026, 11, 1), disposition="credit", acting_user=None)


def test_liens_paid_through_the_tax_bill_are_fund_receipts(billed):
    from stormwater.fund.selectors import receipts_total

    a = acct(billed["shops"])
    d = demand_serve(account=a, served_on=date(2026, 11, 2), acting_user=None)
    c = commitment_create(tax_fiscal_year=2028, committed_on=date(2026, 11, 17), demands=[d], acting_user=None)
    before = receipts_total(date(2026, 7, 1), date(2027, 6, 30))
    lien_paid_record(line=c.lines.get(), paid_on=date(2027, 1, 15), amount=D("1455.33"), acting_user=None)
    assert receipts_total(date(2026, 7, 1), date(2027, 6, 30)) - before == D("1455.33")


def test_demands_and_bills_are_emailed_where_an_address_is_on_file_and_recorded(billed, mailoutbox,
                                                                                django_capture_on_commit_callbacks):
    from stormwater.notices.models import NoticeSent
    from stormwater.receivables.mailing import bill_run_email
    from stormwater.utility.models import BillRun

    shops_owner = billed["shops"].owner
    shops_owner.email = "shops@example.com"
    shops_owner.save()
    with django_capture_on_commit_callbacks(execute=True):
        d = demand_serve(account=acct(billed["shops"]), served_on=date(2026, 11, 2), acting_user=None)
    rec = NoticeSent.objects.get(kind="demand")
    assert rec.object_id == str(d.pk) and rec.status == "sent" and rec.to == "shops@example.com"
    assert mailoutbox[-1].attachments[0][1][:5] == b"%PDF-"
    run = BillRun.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        first = bill_run_email(run=run)
    # Shops LLC owns the shops, the apartments, a condo unit … every bill of theirs goes once.
    assert first["queued"] == Bill.objects.filter(run=run, owner_name="Shops LLC").count() and first["queued"] > 0
    assert bill_run_email(run=run)["queued"] == 0  # never twice
    assert NoticeSent.objects.filter(kind="bill").count() == first["queued"]
