"""Abatements (Ch. 295 Art. IV billing ¶E): within 30 days of the bill's issue, after payment in full;
grounds and evidence; 60 days to decide; deny / grant in full / grant in part, posted to the ledger."""
from datetime import date
from decimal import Decimal as D

import pytest

from stormwater.receivables.services import payment_post
from stormwater.relief import services as sv
from stormwater.relief import workflow as wf
from stormwater.relief.selectors import bill_abatable, bill_paid
from stormwater.utility.models import EntryKind, LedgerEntry

from .conftest import house_bill, pay_in_full, pdf_upload


def apply(bill, user, amount="26.58", disposition="refund", **kw):
    return sv.abatement_apply(bill=bill, grounds=["area"], statement="The shed is gone.", amount_requested=D(amount),
                              disposition=disposition, acting_user=user, **kw)


@pytest.mark.parametrize("day,ok", [
    (date(2026, 10, 9), True),    # the day before the 30th day (Fri)
    (date(2026, 10, 10), True),   # the 30th day, a Saturday
    (date(2026, 10, 12), True),   # Columbus Day: the last day rolls past it
    (date(2026, 10, 13), True),   # the rolled last day
    (date(2026, 10, 14), False),  # the day after
])
def test_an_abatement_is_filed_within_30_days_of_the_bills_issue_date(billed, personas, at, day, ok):
    bill = house_bill(billed)
    at(date(2026, 9, 20))
    pay_in_full(bill, date(2026, 9, 20))
    at(day)
    if ok:
        assert apply(bill, personas["owner"]).case.status == wf.AbatementStatus.FILED
    else:
        with pytest.raises(sv.ReliefError) as e:
            apply(bill, personas["owner"])
        assert "the last day was 2026-10-13" in str(e.value) and "issued 2026-09-10" in str(e.value)


def test_the_second_installments_bill_opens_its_own_30_days(billed, personas, at):
    bill = house_bill(billed)
    at(date(2027, 3, 15))
    pay_in_full(bill, date(2027, 3, 15))
    assert apply(bill, personas["owner"]).case.filed_on == date(2027, 3, 15)  # installment 2 issued Mar 10


def test_an_unpaid_bill_cannot_be_abated_and_the_refusal_names_what_is_owed_and_when_it_was_due(billed, personas, at):
    bill = house_bill(billed)
    at(date(2026, 10, 1))
    payment_post(account=bill.account, amount=D("10.00"), received_on=date(2026, 10, 1), acting_user=None)
    with pytest.raises(sv.ReliefError, match=r"paid in full .*\$16.58 is still owed .* \(due 2026-10-13\)"):
        apply(bill, personas["owner"])


def test_grounds_and_a_statement_are_required_and_the_amount_is_at_most_what_was_paid(billed, personas, at):
    bill = house_bill(billed)
    at(date(2026, 9, 20))
    pay_in_full(bill, date(2026, 9, 20))
    with pytest.raises(sv.ReliefError, match="Name at least one ground"):
        sv.abatement_apply(bill=bill, grounds=[], statement="x", amount_requested=D("1"), disposition="refund",
                           acting_user=personas["owner"])
    with pytest.raises(sv.ReliefError, match=r"at most \$26.58"):
        apply(bill, personas["owner"], amount="30.00")
    assert bill_paid(bill) == D("26.58") and bill_abatable(bill) == D("26.58")


def test_a_grant_in_part_is_kept_as_a_credit_when_the_owner_chose_so(billed, personas, at):
    bill = house_bill(billed)
    at(date(2026, 9, 20))
    payment_post(account=bill.account, amount=D("53.16"), received_on=date(2026, 9, 20), acting_user=None)
    ab = apply(bill, personas["owner"], amount="20.00", disposition="credit",
               uploads=[("evidence", pdf_upload("survey.pdf"))])
    at(date(2026, 11, 1))
    sv.abatement_decide(abatement=ab, decision="grant_part", amount=D("12.50"), reasons="Part of the shed remains.",
                        acting_user=personas["director"])
    ab.refresh_from_db()
    assert ab.case.status == wf.AbatementStatus.GRANTED_PART and ab.amount_granted == D("12.50")
    kinds = {e.kind for e in LedgerEntry.objects.filter(bill=bill, effective_on=date(2026, 11, 1))}
    assert EntryKind.ABATEMENT in kinds and EntryKind.REFUND not in kinds and EntryKind.CREDIT in kinds
    assert ab.case.clocks.get(kind="appeal_filing").state().due == date(2026, 12, 1)
    # A decision cannot be made twice: refused, saying it was decided (issue 17; the table refuses it too).
    with pytest.raises(sv.ReliefError, match="already decided"):
        sv.abatement_decide(abatement=ab, decision="deny", reasons="x", acting_user=personas["director"])


def test_a_grant_in_full_abates_the_amount_requested_and_a_denial_needs_reasons(billed, personas, at):
    bill = house_bill(billed)
    at(date(2026, 9, 20))
    payment_post(account=bill.account, amount=D("53.16"), received_on=date(2026, 9, 20), acting_user=None)
    ab = apply(bill, personas["owner"])
    with pytest.raises(sv.ReliefError, match="give its reasons"):
        sv.abatement_decide(abatement=ab, decision="deny", reasons=" ", acting_user=personas["director"])
    sv.abatement_decide(abatement=ab, decision="grant", reasons="", acting_user=personas["director"])
    ab.refresh_from_db()
    assert ab.amount_granted == D("26.58") and ab.case.closed_at is not None
    assert bill_abatable(bill) == D("26.58")  # paid $53.16, abated $26.58
    assert not ab.case.clocks.filter(kind="appeal_filing").exists()  # nothing denied: nothing to appeal
    with pytest.raises(sv.ReliefError, match="Only a written decision denying"):
        sv.appeal_file(decided_case=ab.case, grounds="x", acting_user=personas["owner"])


def test_the_decision_clock_is_met_on_the_decision_and_flagged_when_the_town_missed_it(billed, personas, at):
    from stormwater.relief.selectors import late_met, work_queue
    from stormwater.cases.selectors import case_clock

    bill = house_bill(billed)
    at(date(2026, 9, 20))
    pay_in_full(bill, date(2026, 9, 20))
    ab = apply(bill, personas["owner"])  # filed Sep 20: decision due Thu Nov 19
    at(date(2026, 11, 19))
    row = next(r for r in work_queue() if r.case == ab.case)
    assert row.view.days_left == 0 and not row.missed
    at(date(2026, 11, 20))
    row = next(r for r in work_queue() if r.case == ab.case)
    assert row.missed and row.view.days_left == -1
    sv.abatement_decide(abatement=ab, decision="deny", reasons="No error shown.", acting_user=personas["director"])
    assert late_met(case_clock(ab.case, "abatement_decision"))


def test_one_pending_abatement_per_bill(billed, personas, at):
    bill = house_bill(billed)
    at(date(2026, 9, 20))
    pay_in_full(bill, date(2026, 9, 20))
    first = apply(bill, personas["owner"], amount="10.00")
    with pytest.raises(sv.ReliefError, match=first.case.number):
        apply(bill, personas["owner"], amount="5.00")
