"""JSON API of the Collector's office (issue 17): a receipt at the window, lien certificate requests. Money as
strings with two decimals; errors as {"error": …} (web/jsonapi.py)."""
from __future__ import annotations

from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.rules.money import fmt
from stormwater.utility.models import Account
from stormwater.web.jsonapi import BadInput, amount, api_errors, date_field, json_object, only_fields, text_field

from .liens import lien_certificate_request
from .selectors import parcels_for_certificate
from .models import LienCertificate, LienChannel, Receipt, Tender
from .services import receipt_post

_errors = api_errors()

RECEIPT_FIELDS = ("account", "amount", "tender", "reference", "received_on", "payer", "confirm_duplicate")
LIEN_FIELDS = ("parcel_id", "requester_name", "requester_role", "requester_email", "channel", "fee_reference")


def receipt_json(r: Receipt) -> dict:
    p = r.payment
    return {"id": r.pk, "number": r.number, "batch": r.batch.number, "account": p.account.number,
            "amount": fmt(p.amount), "tender": r.tender, "reference": p.reference, "received_on": str(p.received_on),
            "balance_before": fmt(r.balance_before), "balance_after": fmt(r.balance_after), "payment": p.pk}


@require_POST
@require_perm(Perm.PAYMENT_POST, api=True)
@_errors
def api_receipts(request):
    """POST {account, amount, tender, reference?, received_on?, payer?, confirm_duplicate?} → the numbered receipt.
    A payment like an earlier one answers 400 with ``duplicate_of``; send it again with confirm_duplicate: true."""
    b = json_object(request)
    only_fields(b, RECEIPT_FIELDS)
    number = text_field(b, "account", required=True, max_length=60).strip()
    acct = Account.objects.filter(number=number).first()
    if acct is None:
        raise BadInput(f"account: no account {number!r}")
    if b.get("amount") is None:
        raise BadInput("amount: required")
    tender = text_field(b, "tender", required=True)
    if tender not in Tender.values:
        raise BadInput(f"tender: one of {', '.join(Tender.values)}")
    confirm = b.get("confirm_duplicate", False)
    if not isinstance(confirm, bool):
        raise BadInput("confirm_duplicate: true or false")
    r = receipt_post(account=acct, amount=amount(b["amount"], "amount"), tender=tender,
                     reference=text_field(b, "reference", max_length=80), payer=text_field(b, "payer", max_length=200),
                     received_on=date_field(b, "received_on", None), confirm_duplicate=confirm,
                     acting_user=request.user)
    return JsonResponse(receipt_json(r), status=201)


def certificate_json(c: LienCertificate) -> dict:
    return {"id": c.pk, "number": c.number, "parcel_id": c.parcel.parcel_id, "channel": c.channel,
            "requester_name": c.requester_name, "requested_on": str(c.requested_on), "due_on": str(c.due_on),
            "fee": fmt(c.fee), "issued_on": str(c.issued_on) if c.issued_on else None,
            "total_due": fmt(c.total_due) if c.total_due is not None else None,
            "figures": c.figures if c.issued_on else None}


@require_POST
@require_perm(api=True)
@_errors
def api_lien_certificates(request):
    """POST {parcel_id (or the street address), requester_name, requester_role?, requester_email?} → the request, with the day it is due
    (MGL c.60 §23). Anyone signed in requests online; the Collector may record a counter request (channel)."""
    b = json_object(request)
    only_fields(b, LIEN_FIELDS)
    pid = text_field(b, "parcel_id", required=True, max_length=120).strip()
    found = parcels_for_certificate(pid)  # the parcel id, or its street address (issue 25)
    if not found:
        raise BadInput(f"parcel_id: no parcel {pid!r} (by parcel id or street address)")
    if len(found) > 1:
        raise BadInput(f"parcel_id: several parcels match {pid!r}: "
                       + "; ".join(f"{p.parcel_id} ({p.address})" for p in found))
    parcel = found[0]
    channel = text_field(b, "channel") or LienChannel.ONLINE
    if channel not in LienChannel.values:
        raise BadInput(f"channel: one of {', '.join(LienChannel.values)}")
    if channel != LienChannel.ONLINE and not request.user.can(Perm.COLLECT):
        raise BadInput("channel: only the Collector records a counter request")
    email = text_field(b, "requester_email", max_length=254).strip()
    if email:
        from django.core.exceptions import ValidationError
        from django.core.validators import validate_email

        try:
            validate_email(email)
        except ValidationError:
            raise BadInput("requester_email: not an e-mail address") from None
    c = lien_certificate_request(parcel=parcel, requester_name=text_field(b, "requester_name", required=True,
                                                                          max_length=200),
                                 requester_role=text_field(b, "requester_role", max_length=80), requester_email=email,
                                 channel=channel, fee_reference=text_field(b, "fee_reference", max_length=80),
                                 acting_user=request.user)
    return JsonResponse(certificate_json(c), status=201)


@require_perm(api=True)
@_errors
def api_lien_certificate(request, cert_id: int):
    """GET a request or certificate (the requester's own, or any for the Collector); figures once issued."""
    c = get_object_or_404(LienCertificate.objects.select_related("parcel"), pk=cert_id)
    if not request.user.can(Perm.COLLECT) and c.requested_by_id != request.user.pk:
        raise Http404("No such certificate.")
    return JsonResponse(certificate_json(c))
