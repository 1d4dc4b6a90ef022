"""A credit balance refunded before the check that made it comes back unpaid (issue 25: the books must not strand
money). The refund paid out money the town never received: the owner owes it again, on an installment, so "due
now", demands and a lien commitment count it — it must not stay owed on the unapplied credit (the books check:
"the unapplied credit is below zero")."""
from datetime import date, datetime
from decimal import Decimal as D
from zoneinfo import ZoneInfo

import time_machine

from stormwater.cashier.refunds import refund_approve, refund_request
from stormwater.cashier.returns import returned_check_record
from stormwater.receivables.bookcheck import check_books, due_now_clears
from stormwater.receivables.ledger import account_position
from stormwater.receivables.selectors import pay_offer
from stormwater.receivables.services import payment_post
from stormwater.utility.models import Account

ET = ZoneInfo("America/New_York")


def at(d: date):
    return time_machine.travel(datetime(d.year, d.month, d.day, 12, tzinfo=ET), tick=False)


def test_a_refunded_overpayment_whose_check_comes_back_is_owed_again(billed, personas):
    a = Account.objects.get(parcel=billed["shops"], unit=None)
    paid_on, back_on = date(2026, 10, 1), date(2026, 10, 5)
    with at(paid_on):
        owed = pay_offer(a, as_of=paid_on).balance
        p = payment_post(account=a, amount=owed + D("100.00"), received_on=paid_on, acting_user=None)
        v = refund_request(account=a, amount=D("100.00"), payee="Shops LLC", reason="Overpaid",
                           acting_user=personas["collector"])
        refund_approve(voucher=v, acting_user=personas["director"])
        assert pay_offer(a, as_of=paid_on).balance == 0
    with at(back_on):
        returned_check_record(payment=p, reason="NSF", reversed_on=back_on, acting_user=personas["collector"])
        pos = account_position(a, as_of=back_on)
        report = check_books(as_of=back_on)
        assert report.clean, [b.line() for b in report.breaks]
        assert pos.credit == 0  # nothing owed on no installment
        # the fee again, and the $100 refunded from the bounced check (interest has not started on Oct 5)
        assert pay_offer(a, as_of=back_on).balance == owed + D("100.00")
        assert pos.dues[0].interest_posted == D("100.00")  # paid first, earning no interest (billing ¶C)
        assert due_now_clears(a, on=back_on) is None
