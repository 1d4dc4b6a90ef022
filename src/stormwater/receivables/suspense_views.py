"""The lockbox suspense queue's pages (issue 25): a posted file with its totals reconciled, the exceptions list,
and the Collector's acts on a held row (match, return, refund). Thin: parse, call one service, render."""
from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.rules.money import fmt_usd
from stormwater.utility.models import Account
from stormwater.web.forms import FieldRefusal
from stormwater.web.paging import paginate
from stormwater.web.postdata import refused

from .base import CollectionError
from .models import PaymentBatch, SuspenseItem, SuspenseState
from .suspense import file_reconciliation, suspense_match, suspense_refund, suspense_return


@require_perm(Perm.PAYMENT_POST)
def payment_file(request, file_id: int):
    """A posted lockbox/processor file: its totals reconciled, its payments, its rows held in suspense."""
    f = get_object_or_404(PaymentBatch.objects.select_related("posted_by"), pk=file_id)
    return render(request, "receivables/payment_file.html", {
        "f": f, "rec": file_reconciliation(f), "can_act": request.user.can(Perm.COLLECT),
        "payments": f.payments.select_related("account", "reversal").order_by("batch_line", "id"),
        "held": f.suspense.select_related("payment__account", "resolved_by").order_by("line")})


@require_perm(Perm.PAYMENT_POST)
def suspense_list(request):
    """The exceptions list: every held row still waiting (oldest first), then those settled lately."""
    waiting = SuspenseItem.objects.filter(state=SuspenseState.WAITING).select_related("file").order_by("received_on",
                                                                                                         "id")
    paged = paginate(request, SuspenseItem.objects.exclude(state=SuspenseState.WAITING)
                     .select_related("file", "payment__account", "resolved_by").order_by("-resolved_at", "-id"))
    return render(request, "receivables/suspense.html", {"waiting": waiting, "settled": paged["page"].object_list,
                                                         "can_act": request.user.can(Perm.COLLECT), **paged})


@require_POST
@require_perm(Perm.COLLECT)
def suspense_act(request, item_id: int, act: str):
    item = get_object_or_404(SuspenseItem.objects.select_related("file"), pk=item_id)
    back = request.POST.get("next") or ""
    to = back if back in (reverse("suspense_list"), reverse("payment_file", args=[item.file_id])) else \
        reverse("suspense_list")
    note = request.POST.get("note", "")
    try:
        if act == "match":
            number = (request.POST.get("account") or "").strip()
            account = Account.objects.filter(number__iexact=number).first()
            if account is None:
                raise FieldRefusal(f"account: no account {number!r}" if number else
                                   "account: the account the payment belongs to", field="account")
            p = suspense_match(item=item, account=account, note=note, acting_user=request.user)
            messages.success(request, f"{item.number}: {fmt_usd(p.amount)} posted to {account.number}.")
        elif act == "return":
            suspense_return(item=item, note=note, acting_user=request.user)
            messages.success(request, f"{item.number}: {fmt_usd(item.amount)} returned to the payer.")
        else:
            suspense_refund(item=item, payee=request.POST.get("payee", ""), note=note, acting_user=request.user)
            messages.success(request, f"{item.number}: {fmt_usd(item.amount)} refunded.")
    except CollectionError as e:
        return refused(request, e, to)
    except FieldRefusal as e:
        return refused(request, e, to)
    return redirect(to)
