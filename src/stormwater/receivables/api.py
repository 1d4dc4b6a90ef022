"""JSON API of collections. Money as strings with two decimals; errors as {"error": ...}."""
from __future__ import annotations

from datetime import date

from django.http import JsonResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.rules.money import fmt
from stormwater.utility.models import Account
from stormwater.web.jsonapi import MAX_WHOLE, BadInput, amount, api_errors, date_field, int_field, json_object

from .access import account_get_for_user
from .ledger import account_position
from .models import Demand, Payment
from .forms import duplicate_message
from .processor import processor_file_post
from .selectors import AT_ENTRY, aging_report
from .services import (CollectionError, DuplicateSuspected, commitment_create, demand_serve, payment_batch_post,
                       payment_post, payment_reverse)


_errors = api_errors()


def position_json(account, as_of: date) -> dict:
    pos = account_position(account, as_of=as_of)
    return {"account": account.number, "parcel_id": account.parcel.parcel_id, "as_of": str(as_of),
            "principal": fmt(pos.principal), "interest": fmt(pos.interest), "demand_charges": fmt(pos.demand),
            "credit": fmt(pos.credit), "balance": fmt(pos.total),
            "installments": [{"bill": d.installment.bill.number, "seq": d.installment.seq,
                              "due_date": str(d.installment.due_date), "principal": fmt(d.principal),
                              "interest": fmt(d.interest), "demand_charges": fmt(d.demand), "total": fmt(d.total),
                              "back_bill": d.no_interest} for d in pos.dues]}


def payment_json(p: Payment) -> dict:
    return {"id": p.pk, "account": p.account.number, "amount": fmt(p.amount), "received_on": str(p.received_on),
            "method": p.method, "reference": p.reference,
            "applied": [{"bill": e.bill.number if e.bill else None, "component": e.component, "amount": fmt(-e.amount)}
                        for e in p.entries.select_related("bill").order_by("id")]}


@require_POST
@require_perm(Perm.PAYMENT_POST, api=True)
@_errors
def api_payment_post(request):
    """POST {account, amount, received_on, method?, reference?} → the payment and how it was applied."""
    b = json_object(request)
    if not isinstance(b.get("account"), (str, int)) or isinstance(b.get("account"), bool):
        raise BadInput("account: required, the account number")
    acct = Account.objects.filter(number=str(b.get("account", "")).strip()).first()
    if acct is None:
        raise BadInput(f"account: no account {b.get('account')!r}")
    if b.get("amount") is None:
        raise BadInput("amount: required")
    confirm = b.get("confirm_duplicate", False)
    if not isinstance(confirm, bool):
        raise BadInput("confirm_duplicate: true or false")
    how_much, received_on, reference = amount(b["amount"], "amount"), date_field(b, "received_on"), \
        str(b.get("reference") or "")
    try:
        p = payment_post(account=acct, amount=how_much, received_on=received_on, method=b.get("method") or "check",
                         reference=reference, acting_user=request.user, confirm_duplicate=confirm, duplicates=AT_ENTRY)
    except DuplicateSuspected as e:  # issue 16: the same payment twice? The caller confirms it is a second one.
        dups = e.matches
        raise BadInput("confirm_duplicate: " + duplicate_message(dups) + " Send confirm_duplicate: true to post it.",
                       {"duplicates": [{"id": d.pk, "amount": fmt(d.amount), "received_on": str(d.received_on),
                                        "reference": d.reference} for d in dups]}) from None
    return JsonResponse(payment_json(p), status=201)


@require_POST
@require_perm(Perm.PAYMENT_POST, api=True)
@_errors
def api_payment_batch(request):
    """POST a lockbox CSV (multipart field "file", or the CSV as the request body); ``?format=processor``: the
    online payment processor's daily file (its columns mapped by the town configuration; receivables.processor);
    ``?dry_run=1``: what would post (200), nothing posted. Read and checked through the import pipeline (issue 20):
    a refused file → 400 with ``rows`` and ``problems`` (file, row, column)."""
    kind = request.GET.get("format", "lockbox")
    if kind not in ("lockbox", "processor"):
        raise BadInput("format: lockbox or processor")
    dry = request.GET.get("dry_run", "")
    if dry not in ("", "0", "1", "true", "false"):
        raise BadInput("dry_run: 1 or 0")
    if request.content_type == "multipart/form-data":
        f = request.FILES.get("file")
        if f is None:
            raise BadInput("file: required (the lockbox CSV as the multipart field \"file\", or as the body)")
        content, name = f.read(), f.name
    else:
        content, name = request.body, request.headers.get("X-Filename", "upload.csv")
    post = processor_file_post if kind == "processor" else payment_batch_post
    r = post(filename=name, content=content, acting_user=request.user, dry_run=dry in ("1", "true"))
    return JsonResponse({"posted": r.posted, "total": fmt(r.total), "already_posted": r.already_posted,
                         "skipped_rows": list(r.skipped), "suspense_rows": list(r.held),
                         "file": r.batch.pk if r.batch else None, "message": r.message, "dry_run": r.dry_run,
                         "problems": [p.as_json() for p in r.problems]},
                        status=200 if r.already_posted or r.dry_run else 201)


@require_POST
@require_perm(Perm.COLLECT, api=True)
@_errors
def api_payment_reverse(request, payment_id: int):
    b = json_object(request)
    p = get_object_or_404(Payment, pk=payment_id)
    payment_reverse(payment=p, reason=str(b.get("reason") or ""), reversed_on=date_field(b, "reversed_on", date.today()),
                    acting_user=request.user)
    return JsonResponse({"reversed": p.pk})


@require_perm(api=True)
@_errors
def api_account(request, number: str):
    account = account_get_for_user(user=request.user, number=number)
    return JsonResponse(position_json(account, date_field(request.GET, "as_of", date.today())))


@require_POST
@require_perm(Perm.COLLECT, api=True)
@_errors
def api_demands(request):
    """POST {accounts: [...], served_on} → the demands served (each account that cannot be served is listed)."""
    b = json_object(request)
    served_on = date_field(b, "served_on", date.today())
    numbers = b.get("accounts")
    if not isinstance(numbers, list) or not numbers or not all(isinstance(n, str) for n in numbers):
        raise BadInput("accounts: a non-empty list of account numbers")
    out, errors = [], []
    for number in numbers:
        acct = Account.objects.filter(number=number).first()
        try:
            if acct is None:
                raise CollectionError(f"account: no account {number!r}")
            d = demand_serve(account=acct, served_on=served_on, acting_user=request.user)
            out.append({"id": d.pk, "account": number, "total_due": fmt(d.total_due)})
        except CollectionError as e:
            errors.append({"account": number, "error": str(e)})
    if not out:
        return JsonResponse({"error": f"accounts: no demand could be served ({len(errors)} refused)",
                             "served": out, "errors": errors}, status=400)
    return JsonResponse({"served": out, "errors": errors}, status=201)


@require_POST
@require_perm(Perm.COLLECT, api=True)
@_errors
def api_commitments(request):
    b = json_object(request)
    ids = b.get("demand_ids") or []
    if not isinstance(ids, list) or not all(isinstance(i, int) and not isinstance(i, bool) and 0 < i <= MAX_WHOLE
                                            for i in ids):
        raise BadInput("demand_ids: a list of demand ids (whole numbers)")
    demands = list(Demand.objects.filter(pk__in=ids).select_related("account"))
    if b.get("tax_fiscal_year") in (None, ""):
        raise BadInput("tax_fiscal_year: required, e.g. 2028")
    fy = int_field(b, "tax_fiscal_year", lo=2000, hi=2100)
    c = commitment_create(tax_fiscal_year=fy, committed_on=date_field(b, "committed_on", date.today()), demands=demands,
                          acting_user=request.user)
    return JsonResponse({"id": c.pk, "lines": [{"account": ln.account.number, "total": fmt(ln.total)}
                                               for ln in c.lines.select_related("account")]}, status=201)


AGING_PAGE_SIZE = 1000
AGING_PAGE_SIZE_MAX = 10000


@require_perm(Perm.BILLING_VIEW_ALL, api=True)
@_errors
def api_aging(request):
    """GET ?as_of=&page=&page_size= → the aging report a page at a time (accounts in account order,
    ``page_size`` default 1000, at most 10000) with ``count`` and ``totals`` over every account; each account
    with its owner and mailing address on one line (as the aging list and its export)."""
    as_of = date_field(request.GET, "as_of", date.today())
    page = int_field(request.GET, "page", 1, lo=1)
    size = int_field(request.GET, "page_size", AGING_PAGE_SIZE, lo=1, hi=AGING_PAGE_SIZE_MAX)
    report = aging_report(as_of=as_of)
    rows = report[(page - 1) * size:page * size]  # the page and the totals in one statement
    t = report.totals()
    return JsonResponse({
        "as_of": str(as_of), "count": t.count, "page": page, "page_size": size,
        "pages": max(1, -(-t.count // size)),
        "totals": {"buckets": {k: fmt(v) for k, v in t.buckets.items()}, "total": fmt(t.total)},
        "accounts": [{"account": r.number, "parcel_id": r.parcel_id,
                      "buckets": {k: fmt(v) for k, v in r.buckets.items()}, "total": fmt(r.total),
                      "oldest_due": str(r.oldest_due) if r.oldest_due else None,
                      # the billed-to owner and where the Collector mails them (issue 25), as the lists show them
                      "owner": r.owner_name, "mailing_address": r.mailing_address} for r in rows]})
