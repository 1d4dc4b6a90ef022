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

from . import online, online_fees, selectors
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
    what = f"the fees of permit application {op.payee_number}" if op.permit_id else f"account {op.payee_number}"
    if r.paid:
        messages.success(request, f"Paid online{test}: {fmt_usd(op.amount)} on {what}, "
                                  f"confirmation {op.confirmation}. It shows as pending settlement until the "
                                  "processor's payment reaches the Town"
                         + (": the application is filed then, and the 42-day clock starts." if op.permit_id
                            else "."))
    else:
        messages.warning(request, f"The payment of {fmt_usd(op.amount)} was not made{test}: nothing was paid.")
    if op.permit_id:
        return redirect("permit_detail", op.payee_number)
    if op.bill_id:
        return redirect("bill_detail", op.bill.number)
    return redirect("account_statement", op.account.number)


@require_perm()
@require_http_methods(["GET", "POST"])
def fee_pay_confirm(request, number: str):
    """/pay/permit/<number>/ (issue 30): the permit application's fee (§ 380-10 G(1)), what happens next (pending
    settlement, then filed), "Continue to the payment page" → the processor's page, as for a bill. The applicant's
    act: a file reached as for filing it (``permit_get_for_applicant``: 404 for anyone else's, 403 for a viewer)."""
    from stormwater.permits.selectors import permit_get_for_applicant

    app = permit_get_for_applicant(user=request.user, number=number)
    offer = online_fees.fee_online_offer(app)
    if offer is None:
        raise Http404("Paying online is not available.")
    error = offer.refusal or ""
    if request.method == "POST" and not error:
        try:
            confirmed = money_value(request.POST.get("amount"), "amount")
            op = online_fees.fee_payment_start(application=app, acting_user=request.user, amount=confirmed)
        except ValueError as e:
            error = str(e)
            offer = online_fees.fee_online_offer(app)
        else:
            return redirect(online.handoff_url(op, return_url=request.build_absolute_uri(reverse("pay_return"))))
    return render(request, "receivables/fee_pay_confirm.html", {
        "app": app, "offer": offer, "test": online.processor() == online.TEST, "error": error},
        status=400 if error and request.method == "POST" else 200)
