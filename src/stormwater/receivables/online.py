"""Paying online: the signed hand-off to the payment processor and its signed return (issue 25, item 13).

The flow (docs/collector-bills-and-payments.md "Paying online"): the resident's bill → "Pay $… online" → the Town's
confirmation page (amount, account, what happens) → ``online_payment_start`` records an ``OnlinePayment`` with a
one-time reference and hands off to the processor's page (``handoff_url``: the town's ``payment_url_template`` plus
``reference``, ``return_url`` and ``signature``) → the resident pays there (card data never reaches this system) →
the processor sends the browser back to ``return_url`` with ``reference``, ``confirmation``, ``amount``, ``status``
and ``signature`` → ``online_payment_return`` checks the signature and that the reference is used once, and marks
the online payment ``paid``: the bill says **Paid online, pending settlement**.

One meaning, the one the processor design of issue 17 already had (receivables/processor.py): money reaches the
ledger only when the processor's settlement file is posted by the Collector ("Post a lockbox file", kind
processor). A return is the processor's word that it took the payment, not money in the Town's account: it changes
no balance, no interest and no lien. The settlement file's row carries the confirmation number as its reference;
once that payment is posted the online payment is settled (``pending``: paid, no such payment yet) and the bill
says **Paid** (or Partly paid) from the ledger, as for any payment.

Signatures: HMAC-SHA256, hex, over the fields joined by a unit separator, with the key shared with the processor
(``settings.PAYMENT_PROCESSOR_SECRET``); the built-in TEST processor (``testprocessor.py``) uses a key derived from
``SECRET_KEY``. Where the TEST page is on: ``test_page_on`` (town configuration ``test_payment_page``).
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from urllib.parse import urlencode

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from stormwater.audit.services import actor_or_none, audit_record
from stormwater.townconfig import town_config

from .models import OnlinePayment, Payment

TEST, HOSTED = "test", "hosted"
HANDOFF_FIELDS = ("account", "amount", "bill", "reference", "return_url")
RETURN_FIELDS = ("reference", "confirmation", "amount", "status")


class ReturnRefused(ValueError):
    """A processor's return that is not honoured (forged, replayed, altered, or from a processor not in use)."""


def test_page_on() -> bool:
    """Is the built-in TEST payment page in use? Only where no real processor is configured, and then as the town
    configuration's ``test_payment_page`` says: "development" (the default) = everywhere but a production
    installation, "on" = also in production (the town chose it), "off" = never."""
    cfg = town_config()
    if cfg.payment_url_template or cfg.test_payment_page == "off":
        return False
    return cfg.test_payment_page == "on" or not getattr(settings, "PRODUCTION", False)


def processor() -> str | None:
    """Which processor the Pay button hands off to: ``hosted`` (the town's), ``test`` (the built-in TEST page) or
    None (no Pay button)."""
    if town_config().payment_url_template:
        return HOSTED
    return TEST if test_page_on() else None


def _key(kind: str) -> bytes:
    if kind == TEST:
        return hashlib.sha256(b"stormwater.pay.test\x1f" + settings.SECRET_KEY.encode()).digest()
    return (getattr(settings, "PAYMENT_PROCESSOR_SECRET", "") or "").encode()


def sign(kind: str, values) -> str:
    """The signature of ``values`` (strings, in order) with the key of processor ``kind`` ("" without a key)."""
    key = _key(kind)
    if not key:
        return ""
    return hmac.new(key, "\x1f".join(str(v) for v in values).encode(), hashlib.sha256).hexdigest()


def signature_ok(kind: str, values, signature: str) -> bool:
    expected = sign(kind, values)
    return bool(expected) and hmac.compare_digest(expected, signature or "")


@transaction.atomic
def online_payment_start(*, account=None, amount: Decimal, bill=None, permit=None, acting_user) -> OnlinePayment:
    """Record the payer's confirmed trip to the processor (a one-time reference) for an ``account`` (and ``bill``)
    or, issue 30, a ``permit`` application's fee (receivables/online_fees.py checks the fee first); ``ValueError``
    without a processor or for an amount that is not positive."""
    kind = processor()
    if kind is None:
        raise ValueError("Paying online is not available: the town has no payment processor.")
    if amount <= 0:
        raise ValueError("Nothing is due now: there is nothing to pay online.")
    if (account is None) == (permit is None):
        raise ValueError("An online payment pays an account or a permit fee, one of the two.")
    op = OnlinePayment.objects.create(reference=f"OP-{secrets.token_hex(10)}", account=account, bill=bill,
                                      permit=permit, amount=amount, processor=kind,
                                      started_by=actor_or_none(acting_user))
    audit_record(actor=acting_user, action="online_payment.start", obj=op,
                 data={"account": op.payee_number, "amount": str(amount), "processor": kind,
                       "bill": bill.number if bill else "", "permit": bool(permit)})
    return op


def handoff_values(op: OnlinePayment, return_url: str) -> dict[str, str]:
    """What the processor is told: ``account`` is the account number or, for a permit fee, the permit file's
    number (the processor's settlement file carries it back as the row's account)."""
    return {"account": op.payee_number, "amount": f"{op.amount:.2f}", "bill": op.bill.number if op.bill else "",
            "reference": op.reference, "return_url": return_url}


def handoff_url(op: OnlinePayment, *, return_url: str) -> str:
    """Where the resident is sent: the processor's page, with what to take and where to come back, signed."""
    values = handoff_values(op, return_url)
    extra = {"reference": op.reference, "return_url": return_url,
             "signature": sign(op.processor, [values[f] for f in HANDOFF_FIELDS])}
    if op.processor == TEST:
        from django.urls import reverse

        base = reverse("pay_test") + "?" + urlencode({"account": values["account"], "amount": values["amount"],
                                                      "bill": values["bill"]})
    else:
        base = town_config().payment_url(account=values["account"], amount=op.amount, bill=values["bill"])
    return base + ("&" if "?" in base else "?") + urlencode(extra)


def return_values(*, reference: str, confirmation: str, amount: str, status: str) -> list[str]:
    return [reference, confirmation, amount, status]


@dataclass(frozen=True)
class Returned:
    online: OnlinePayment
    paid: bool  # False: the processor says the payment was not made (declined, cancelled)


def online_payment_return(params) -> Returned:
    """Honour the processor's return (a mapping of the query's fields) once: the signature must be the processor's
    over the reference, the confirmation number, the amount and the status; the reference must be one of ours,
    still waiting, for that amount. Anything else → ``ReturnRefused`` naming why (nothing changes)."""
    g = {f: (params.get(f) or "").strip() for f in (*RETURN_FIELDS, "signature")}
    op = OnlinePayment.objects.select_related("account", "bill", "permit__case").filter(reference=g["reference"]).first()
    if op is None:
        raise ReturnRefused("No online payment of the Town has this reference.")
    if op.processor == TEST and not test_page_on():
        raise ReturnRefused("The TEST payment page is not in use here: its returns are refused.")
    if not signature_ok(op.processor, return_values(**{f: g[f] for f in RETURN_FIELDS}), g["signature"]):
        raise ReturnRefused("The return is not signed by the Town's payment processor (a wrong or missing "
                            "signature): nothing was recorded.")
    try:
        amount = Decimal(g["amount"])
    except InvalidOperation:
        amount = None
    if amount != op.amount:
        raise ReturnRefused(f"The return names {g['amount']!r}, not the {op.amount:.2f} the Town handed off.")
    if g["status"] != "paid":
        return Returned(op, False)
    if not g["confirmation"]:
        raise ReturnRefused("The return has no confirmation number.")
    # One time: only a waiting reference becomes paid (a conditional update, so two returns at once pay once).
    with transaction.atomic():
        done = OnlinePayment.objects.filter(pk=op.pk, state=OnlinePayment.STARTED).update(
            state=OnlinePayment.PAID, confirmation=g["confirmation"][:80], paid_at=timezone.now())
        if not done:
            raise ReturnRefused("This return was already used: the payment it names is recorded once.")
        op.refresh_from_db()
        audit_record(actor=None, action="online_payment.paid", obj=op,
                     data={"account": op.payee_number, "amount": str(op.amount), "confirmation": op.confirmation})
    return Returned(op, True)


def pending(account, *, bill=None) -> list[OnlinePayment]:
    """The account's (or bill's) online payments the processor took whose settlement has not posted yet: paid,
    and no payment on the account carries their confirmation number."""
    qs = OnlinePayment.objects.filter(account=account, state=OnlinePayment.PAID)
    if bill is not None:
        qs = qs.filter(bill=bill)
    ops = list(qs.order_by("paid_at", "id"))
    if not ops:
        return []
    settled = set(Payment.objects.filter(account=account, reference__in=[o.confirmation for o in ops])
                  .values_list("reference", flat=True))
    return [o for o in ops if o.confirmation not in settled]
