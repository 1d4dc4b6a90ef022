"""Bill runs (Ch. 295 Art. IV ¶B, ¶E, ¶G): every nonexempt parcel once, installments, due dates, ledger."""
from datetime import date
from decimal import Decimal as D

import pytest
from django.db import DatabaseError, IntegrityError, transaction

from stormwater.audit.models import AuditEvent
from stormwater.utility.models import Bill, BillRunException, EntryKind, Installment, LedgerEntry
from ledger_sum import account_balance
from stormwater.utility.selectors import ERR_NO_AREA, ERR_NO_OWNER
from stormwater.utility.services import BillingError, bill_run_issue, fiscal_year

FY = fiscal_year(2027)


def issue(user=None, issue_date=date(2026, 9, 10)):
    label, start, end = FY
    return bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=issue_date,
                          acting_user=user)


def test_it_bills_every_nonexempt_parcel_once_to_the_record_owner(town, resolution, personas):
    result = issue(personas["collector"])
    billed = set(Bill.objects.values_list("parcel__parcel_id", flat=True))
    assert billed == {"01-01-1", "01-01-2", "02-01-1", "02-01-2", "09-01-2", "04-01-1"}
    assert "09-01-1" not in billed  # public way: exempt
    assert result.exempt == 1
    shops = Bill.objects.get(parcel=town["shops"])
    assert (shops.erus, shops.amount, shops.owner_name) == (59, D("2828.11"), "Shops LLC")
    assert "59 ERUs" in shops.explanation and shops.blocks[2]["amount"] == "382.75"
    assert Bill.objects.get(parcel=town["house"]).amount == D("53.16")
    assert Bill.objects.get(parcel=town["garage"]).property_class == "nonresidential"


def test_parcels_that_cannot_be_billed_are_listed_with_why_never_billed_zero(town, resolution):
    result = issue()
    problems = dict(result.problems)
    assert problems["03-01-1"] == ERR_NO_OWNER
    assert "dwelling units is unknown" in problems["03-01-2"]
    assert problems["03-01-3"] == ERR_NO_AREA
    assert not Bill.objects.filter(parcel__parcel_id__in=problems).exists()
    assert set(BillRunException.objects.values_list("parcel__parcel_id", flat=True)) == set(problems)


def test_rerunning_a_period_bills_nothing_twice(town, resolution):
    first = issue()
    n = Bill.objects.count()
    second = issue(issue_date=date(2026, 10, 1))
    assert second.run is None and second.bills == 0 and second.already_billed == n
    assert Bill.objects.count() == n and LedgerEntry.objects.count() == Installment.objects.count()
    assert first.run.bill_count == n


def test_a_new_parcel_is_billed_by_a_second_run_without_rebilling_others(town, resolution):
    from stormwater.parcels.models import Parcel, ParcelImpervious

    issue()
    n = Bill.objects.count()
    p = Parcel.objects.create(parcel_id="05-01-1", address="5 New St", owner=town["shops"].owner,
                              land_use_code="340", lot_sqft=D(50000))
    ParcelImpervious.objects.create(survey=town["survey"], parcel=p, impervious_sqft=D(6800))
    again = issue(issue_date=date(2026, 11, 2))
    assert again.bills == 1 and Bill.objects.count() == n + 1


def test_the_database_refuses_a_second_bill_for_the_same_account_and_period(town, resolution):
    issue()
    b = Bill.objects.first()
    b.pk = None
    b.number = "dup"
    with pytest.raises(IntegrityError), transaction.atomic():
        b.save()


def test_installments_sum_to_the_bill_and_fall_due_30_days_after_issue_rolled_past_holidays(town, resolution):
    issue(issue_date=date(2026, 9, 10))  # resolution: 2 installments a year
    for bill in Bill.objects.prefetch_related("installments"):
        inst = list(bill.installments.all())
        assert len(inst) == 2 and sum(i.amount for i in inst) == bill.amount
    i1, i2 = Bill.objects.get(parcel=town["shops"]).installments.all()
    assert (i1.issue_date, i1.due_date) == (date(2026, 9, 10), date(2026, 10, 13))  # Oct 10 Sat, 12 Columbus Day
    assert (i2.issue_date, i2.due_date) == (date(2027, 3, 10), date(2027, 4, 9))
    assert (i1.amount, i2.amount) == (D("1414.06"), D("1414.05"))


def test_association_units_are_billed_their_recorded_share_summing_to_the_cent(town, resolution, personas):
    issue()
    bills = Bill.objects.filter(parcel=town["condo"]).order_by("number")
    assert [b.share_percent for b in bills] == [D("33.3333"), D("33.3333"), D("33.3334")]
    total = D("159.48")  # 3 ERUs × $53.16
    assert sum(b.amount for b in bills) == total
    assert [b.amount for b in bills] == [D("53.16"), D("53.16"), D("53.16")]
    a = bills[0]
    assert a.owner_name == "Olivia Owner" and "unit A is 33.3333%" in a.explanation


def test_no_resolution_in_force_is_a_clear_error(town):
    with pytest.raises(BillingError, match="No rate resolution is in force on 2026-07-01"):
        issue()


def test_each_installment_is_a_charge_in_the_append_only_ledger(town, resolution):
    issue()
    bill = Bill.objects.get(parcel=town["shops"])
    entries = LedgerEntry.objects.filter(account=bill.account)
    assert [e.kind for e in entries] == [EntryKind.CHARGE, EntryKind.CHARGE]
    assert account_balance(bill.account, as_of=date(2026, 9, 30)) == D("1414.06")
    assert account_balance(bill.account, as_of=date(2027, 3, 31)) == D("2828.11")
    e = entries[0]
    with pytest.raises(ValueError, match="append-only"):
        e.save()
    with pytest.raises(ValueError, match="append-only"):
        e.delete()
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        LedgerEntry.objects.filter(pk=e.pk).update(amount=0)
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        LedgerEntry.objects.filter(pk=e.pk).delete()
    e.refresh_from_db()
    assert e.amount == D("1414.06")


def test_the_run_is_audited_with_who_and_what(town, resolution, personas):
    result = issue(personas["collector"])
    ev = AuditEvent.objects.get(action="bill_run.issue")
    assert ev.actor == personas["collector"] and ev.object_id == str(result.run.pk)
    assert ev.data["bills"] == result.bills
    with pytest.raises(DatabaseError), transaction.atomic():
        AuditEvent.objects.filter(pk=ev.pk).update(why="rewritten")


def test_the_resolution_in_force_on_the_periods_first_day_is_used(town, resolution):
    from stormwater.rules.fees import TABLE_1_BLOCKS
    from stormwater.utility.services import resolution_adopt

    resolution_adopt(label="Later", adopted_on=date(2027, 5, 1), effective_from=date(2027, 7, 1), eru_sqft=D(3400),
                     rate_per_eru=D("60.00"), small_residential_rate=D("60.00"), installments=1,
                     interest_rate_percent=D(12), demand_charge=D(25), blocks=list(TABLE_1_BLOCKS), acting_user=None)
    issue()
    assert Bill.objects.get(parcel=town["house"]).amount == D("53.16")
