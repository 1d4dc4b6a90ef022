"""The built-in TEST payment processor (issue 25, item 13): so that the demo town, as shipped, can be paid online end to
end without an outside processor. It plays the processor's part of receivables/online.py exactly as a real one:

- ``/pay/test/`` (GET): the hosted page the hand-off lands on. It checks the Town's signature over the hand-off
  (account, amount, bill, reference, return URL) as a processor does, and shows a card form marked TEST.
- ``/pay/test/`` (POST): takes only the published test card numbers (``TEST_CARDS``; a real card number is refused
  with a warning) and sends the browser back to the return URL with a signed return: ``paid`` with a confirmation
  number ``TEST-…``, or ``declined`` for the declining test card. Nothing typed into the form is stored or logged.
- ``/pay/test/settlement.csv`` (the Collector): the processor's settlement file of the TEST payments, in the columns
  and date format the town configuration maps (``processor_columns``, ``processor_date_format``), to post through
  "Post a lockbox file" → kind "Online payment processor's daily file" like a real processor's.

The TEST processor keeps no books of its own: its settlement file lists the TEST payments whose return the Town
recorded. Its key is derived from ``SECRET_KEY`` (``online._key``). It answers only where ``online.test_page_on()``
(town configuration ``test_payment_page``: never in production unless the town sets "on"; docs/deploy.md).
"""
from __future__ import annotations

import secrets
from urllib.parse import urlencode

from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.townconfig import town_config
from stormwater.web.files import csv_response

from . import online
from .models import OnlinePayment
from .processor import processor_mapping

TEST_CARDS = {"4242424242424242": "paid", "4000000000000002": "declined"}


def _handoff(src) -> dict[str, str]:
    return {f: (src.get(f) or "").strip() for f in (*online.HANDOFF_FIELDS, "signature")}


@require_perm()  # a real processor's page is on its own site; this stand-in serves the signed-in resident only
@require_http_methods(["GET", "POST"])
def pay_test(request):
    if not online.test_page_on():
        raise Http404("The TEST payment page is not in use here.")
    h = _handoff(request.POST if request.method == "POST" else request.GET)
    if not online.signature_ok(online.TEST, [h[f] for f in online.HANDOFF_FIELDS], h["signature"]):
        return render(request, "receivables/pay_test.html", {
            "refused": "This payment request is not signed by the Town: start again from your bill."}, status=400)
    error = ""
    if request.method == "POST":
        card = "".join(c for c in request.POST.get("card_number", "") if c.isdigit())
        status = TEST_CARDS.get(card)
        if status is None:
            error = ("This is a TEST page: it takes only the test card 4242 4242 4242 4242 (or 4000 0000 0000 0002, "
                     "which is declined). Never type a real card number here.")
        else:
            confirmation = f"TEST-{secrets.token_hex(5).upper()}" if status == "paid" else ""
            back = {"reference": h["reference"], "confirmation": confirmation, "amount": h["amount"],
                    "status": status}
            back["signature"] = online.sign(online.TEST, online.return_values(**back))
            return redirect(h["return_url"] + ("&" if "?" in h["return_url"] else "?") + urlencode(back))
    return render(request, "receivables/pay_test.html", {"h": h, "error": error}, status=400 if error else 200)


@require_perm(Perm.PAYMENT_POST)
def pay_test_settlement(request):
    """The TEST processor's settlement file (every TEST payment it took; a cumulative file posts only its new rows)."""
    if not online.test_page_on():
        raise Http404("The TEST payment page is not in use here.")
    mapping = processor_mapping()
    fmt = town_config().processor_date_format
    fields = ("account", "amount", "received_on", "reference")
    rows = ([op.payee_number, f"{op.amount:.2f}", timezone.localdate(op.paid_at).strftime(fmt), op.confirmation]
            for op in OnlinePayment.objects.filter(processor=online.TEST, state=OnlinePayment.PAID)
            .select_related("account", "permit__case").order_by("paid_at", "id"))
    return csv_response([mapping[f] for f in fields], rows,
                        name=f"test-processor-settlement-{timezone.localdate().isoformat()}")
