"""The resident's side of paying online (issue 25, item 13; receivables/online.py): the confirmation page before the
hand-off and the processor's signed return. Thin: parse, call one service, render."""
from __future__ import annotations

from datetime import date

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from stormwater.accounts.access import require_perm
from stormwater.rules.money import fmt_usd
from stormwater.townconfig import town_config
from stormwater.utility.models import Bill
from stormwater.web.postdata import money_value

from . import online, selectors
from .access import account_get_for_user


def _what(request, number: str):
    """(account, bill or None, amount offered, whole balance?) for the Pay link's query (?bill=…&whole=1)."""
    account = account_get_for_user(user=request.user, number=number)
    src = request.POST if request.method == "POST" else request.GET
    bill = None
    if src.get("bill"):
        bill = Bill.objects.filter(number=src["bill"], account=account, run__state="issued").first()
        if bill is None or getattr(bill, "voided", False):
            raise Http404("No such bill on this account.")
    whole = src.get("whole") == "1" and town_config().pay_whole_balance_online
    offer = selectors.pay_offer(account, as_of=date.today(), bill=bill)
    return account, bill, (offer.balance if whole else offer.due_now), whole


@require_perm()
@require_http_methods(["GET", "POST"])
def pay_confirm(request, number: str):
    """/pay/<account>/: what will be paid, on which account and bill, and what happens next; "Continue to the
    payment page" records the one-time reference and hands off (302) to the processor's page."""
    account, bill, amount, whole = _what(request, number)
    kind = online.processor()
    if kind is None:
        raise Http404("Paying online is not available.")
    error = ""
    if request.method == "POST":
        try:
            confirmed = money_value(request.POST.get("amount"), "amount")
        except ValueError as e:
            confirmed, error = None, str(e)
        if confirmed is not None and confirmed != amount:  # the amount due moved since the page was shown
            error = f"The amount due is now {fmt_usd(amount)}, not {fmt_usd(confirmed)}: check it and continue again."
        elif confirmed is not None:
            try:
                op = online.online_payment_start(account=account, amount=amount, bill=bill, acting_user=request.user)
            except ValueError as e:
                error = str(e)
            else:
                return redirect(online.handoff_url(op, return_url=request.build_absolute_uri(reverse("pay_return"))))
    return render(request, "receivables/pay_confirm.html", {
        "account": account, "bill": bill, "amount": amount, "whole": whole, "test": kind == online.TEST,
        "pending": online.pending(account), "error": error}, status=400 if error else 200)


@require_perm()
def pay_return(request):
    """/pay/return/: where the processor sends the resident back. Signed and used once (online_payment_return);
    a forged, altered or replayed return is refused (400) and changes nothing. Signed in, like the bill the payment
    started from (a session that ended on the way asks to sign in and comes back here with the same query)."""
    try:
        r = online.online_payment_return(request.GET)
    except online.ReturnRefused as e:
        return render(request, "receivables/pay_refused.html", {"reason": str(e)}, status=400)
    op = r.online
    test = " (TEST: no money moved)" if op.processor == online.TEST else ""
    if r.paid:
        messages.success(request, f"Paid online{test}: {fmt_usd(op.amount)} on account {op.account.number}, "
                                  f"confirmation {op.confirmation}. It shows as pending settlement until the "
                                  "processor's payment reaches the Town.")
    else:
        messages.warning(request, f"The payment of {fmt_usd(op.amount)} was not made{test}: nothing was paid.")
    if op.bill_id:
        return redirect("bill_detail", op.bill.number)
    return redirect("account_statement", op.account.number)
