"""The Collector's office pages (issue 17). Thin: parse, call one service, render."""
from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.db import transaction
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.receivables.access import account_get_for_user
from stormwater.receivables.models import PaymentBatch
from stormwater.receivables.services import CollectionError
from stormwater.rules.money import fmt_display as fmt
from stormwater.web.files import download, table_response
from stormwater.web.listexports import export_progress, large_export
from stormwater.utility.scanline import ScanlineError, looks_like_scanline
from stormwater.web.forms import FieldRefusal, add_refusal, form_refusal
from stormwater.web.paging import paginate
from stormwater.web.postdata import refused

from . import selectors
from .documents import receipt_pdf
from .forms import CloseBatchForm, DayForm, DepositForm, EmailForm, ReceiptForm, ScanForm, SearchForm
from .models import BatchState, CashBatch, Deposit, Receipt, Tender
from .services import (DuplicateSuspected, cash_batch_close, deposit_create, lien_fee_receipt, receipt_email,
                       receipt_post)


def _my_batch(user):
    return CashBatch.objects.filter(cashier=user, state=BatchState.OPEN).first()


def _scan_message(e: Exception) -> str:
    return str(e).removeprefix("scanline: ")


@require_perm(Perm.PAYMENT_POST)
def window(request):
    """Find an account: by owner name, address, parcel id, bill number or account number, or the bill stub's
    scanline (issue 25: it opens the account with the stub's amount filled; a wrong check digit is said)."""
    form = SearchForm(request.GET or None)
    q = form.cleaned_data["q"].strip() if form.is_valid() else ""
    stub_error = None
    if looks_like_scanline(q):
        try:
            acct, _ = selectors.stub_read(q)
            return redirect(f"{reverse('cashier_account', args=[acct.number])}?{urlencode({'stub': q})}")
        except ScanlineError as e:
            stub_error = _scan_message(e)
    results = selectors.account_search(q) if q and not stub_error else []
    if len(results) == 1 and request.GET.get("go") != "list":
        return redirect("cashier_account", number=results[0].number)
    rows = [(a, selectors.account_owner_name(a)) for a in results]
    return render(request, "cashier/window.html", {"form": form, "rows": rows, "searched": bool(q),
                                                   "stub_error": stub_error, "batch": _my_batch(request.user),
                                                   "limit": selectors.SEARCH_LIMIT})


def _stub_amount(request, acct):
    """The amount of the stub the window was opened with (``?stub=``, re-read and checked), for the form."""
    try:
        found, amount = selectors.stub_read(request.GET.get("stub") or "")
    except ScanlineError:
        return None
    return amount if found == acct else None


@require_perm(Perm.PAYMENT_POST)
def scan(request):
    """Scan and post (issue 25): one stub after another into the cashier's open batch, keyboard only. The check
    number (for a check) and an amount that differs from the stub's are typed first; the scanner types the scanline
    and presses Enter, which posts; the page comes back empty, the tender kept, for the next stub."""
    tender = request.GET.get("tender") if request.GET.get("tender") in Tender.values else Tender.CHECK
    form = ScanForm(request.POST or None, initial={"tender": tender},
                    focus="reference" if tender == Tender.CHECK else "scanline")
    duplicate, read, error = None, None, None
    if request.method == "POST" and form.is_valid():
        cd = form.cleaned_data
        try:
            acct, stub_amount = selectors.stub_read(cd["scanline"])
        except ScanlineError as e:
            error = FieldRefusal(_scan_message(e), field="scanline")
        else:
            read = (acct, cd["amount"] or stub_amount)
            try:
                r = receipt_post(account=acct, amount=read[1], tender=cd["tender"], reference=cd["reference"],
                                 confirm_duplicate=cd["confirm_duplicate"], acting_user=request.user)
                messages.success(request, f"Receipt {r.number}: ${fmt(r.payment.amount)} posted to {acct.number} "
                                          f"({selectors.account_owner_name(acct)}). Scan the next stub.")
                return redirect(f"{reverse('cashier_scan')}?{urlencode({'tender': cd['tender']})}")
            except DuplicateSuspected as e:
                duplicate = e
            except CollectionError as e:
                error = e
        # Not posted: the form again with the stub's amount filled and the refused input focused.
        data = request.POST.copy()
        if read:
            data["amount"] = f"{read[1]:.2f}"
        if duplicate:
            data["confirm_duplicate"] = "on"
        field = getattr(error, "field", None) or str(error or "").split(":", 1)[0]
        form = ScanForm(data, focus=field if field in ScanForm.base_fields else "scanline")
        form.is_valid()
        if error is not None:
            add_refusal(form, error)
    batch = _my_batch(request.user)
    return render(request, "cashier/scan.html", {
        "form": form, "batch": batch, "duplicate": duplicate, "read": read,
        "owner": selectors.account_owner_name(read[0]) if read else "",
        "receipts": (batch.receipts.select_related("payment__account", "payment__reversal").order_by("-id")[:10]
                     if batch else [])},
        status=400 if form.errors or duplicate else 200)


@require_perm(Perm.PAYMENT_POST)
def account(request, number: str):
    acct = account_get_for_user(user=request.user, number=number)
    form = ReceiptForm(request.POST or None, initial={"amount": _stub_amount(request, acct)})
    duplicate = None
    if request.method == "POST" and form.is_valid():
        cd = form.cleaned_data
        try:
            r = receipt_post(account=acct, amount=cd["amount"], tender=cd["tender"], received_on=cd["received_on"],
                             reference=cd["reference"], payer=cd["payer"],
                             confirm_duplicate=cd["confirm_duplicate"], acting_user=request.user)
            messages.success(request, f"Receipt {r.number}: ${fmt(r.payment.amount)} posted to {acct.number}.")
            return redirect("cashier_receipt", receipt_id=r.pk)
        except DuplicateSuspected as e:
            duplicate = e
            data = request.POST.copy()
            data["confirm_duplicate"] = "on"
            form = ReceiptForm(data)
            form.is_valid()
        except CollectionError as e:
            add_refusal(form, e)
    due = selectors.amount_due(acct)
    return render(request, "cashier/account.html", {
        "account": acct, "owner": selectors.account_owner_name(acct), "due": due, "form": form,
        "duplicate": duplicate, "batch": _my_batch(request.user),
        "receipts": Receipt.objects.filter(payment__account=acct).select_related("payment__reversal")[:10]},
        status=400 if form.errors else 200)


@require_perm(Perm.PAYMENT_POST)
def receipt(request, receipt_id: int):
    r = get_object_or_404(Receipt.objects.select_related("payment__account__parcel", "batch__cashier"), pk=receipt_id)
    return render(request, "cashier/receipt.html", {"r": r, "email_form": EmailForm()})


@require_perm(Perm.PAYMENT_POST)
def receipt_download(request, receipt_id: int):
    r = get_object_or_404(Receipt.objects.select_related("payment__account__parcel__owner", "batch__cashier"),
                          pk=receipt_id)
    return download(receipt_pdf(r), name=f"receipt-{r.number}", ext="pdf")


@require_POST
@require_perm(Perm.PAYMENT_POST)
def receipt_send(request, receipt_id: int):
    r = get_object_or_404(Receipt, pk=receipt_id)
    to = reverse("cashier_receipt", args=[r.pk])
    form = EmailForm(request.POST)
    if not form.is_valid():  # refused: the receipt page again with the address typed, the error at it
        return refused(request, form_refusal(form, "to: enter an e-mail address."), to)
    try:
        receipt_email(receipt=r, to=form.cleaned_data["to"], acting_user=request.user)
    except CollectionError as e:
        return refused(request, e, to)
    messages.success(request, f"Receipt {r.number} queued for {form.cleaned_data['to']}.")
    return redirect(to)


@require_perm(Perm.PAYMENT_POST)
def batches(request):
    qs = CashBatch.objects.select_related("cashier", "deposit")
    if not request.user.can(Perm.COLLECT):
        qs = qs.filter(cashier=request.user)
    paged = paginate(request, qs)
    return render(request, "cashier/batches.html", {"batches": paged["page"].object_list, **paged,
                                                    "mine": _my_batch(request.user)})


@require_perm(Perm.PAYMENT_POST)
def batch_detail(request, batch_id: int):
    b = get_object_or_404(CashBatch.objects.select_related("cashier", "deposit"), pk=batch_id)
    if b.cashier_id != request.user.pk and not request.user.can(Perm.COLLECT):
        raise Http404("No such batch.")
    form = CloseBatchForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            cash_batch_close(batch=b, counted={t: form.cleaned_data[t] for t in Tender.values},
                             reason=form.cleaned_data["over_short_reason"], acting_user=request.user)
            b.refresh_from_db()
            msg = f"Batch {b.number} closed: counted ${fmt(b.counted_total)}"
            msg += "." if b.over_short == 0 else (f", {'over' if b.over_short > 0 else 'short'} "
                                                  f"${fmt(abs(b.over_short))}: waiting for a second person's approval.")
            messages.success(request, msg)
            return redirect("cashier_batch", batch_id=b.pk)
        except (CollectionError, ValueError) as e:
            add_refusal(form, e)
    from .services import batch_expected

    expected = batch_expected(b) if b.state == BatchState.OPEN else None
    tenders = [(t.value, t.label, (expected or {}).get(t.value), b.counted.get(t.value), b.expected.get(t.value))
               for t in Tender]
    from stormwater.roles import Role

    can_approve = (b.over_short_waiting and request.user.role == Role.COLLECTOR
                   and request.user.pk not in (b.cashier_id, b.closed_by_id))
    return render(request, "cashier/batch.html", {
        "b": b, "form": form, "tenders": tenders, "can_approve": can_approve,
        "fees": b.fee_receipts.select_related("certificate").order_by("id"),
        "receipts": b.receipts.select_related("payment__account", "payment__reversal").order_by("id")},
        status=400 if form.errors else 200)


@require_POST
@require_perm(Perm.COLLECT)
def batch_approve(request, batch_id: int):
    """A second person approves a batch's over/short (issue 25)."""
    from .forms import DecisionForm
    from .services import cash_batch_over_short_approve

    b = get_object_or_404(CashBatch, pk=batch_id)
    to = reverse("cashier_batch", args=[b.pk])
    form = DecisionForm(request.POST)
    try:
        cash_batch_over_short_approve(batch=b, note=form.cleaned_data["note"] if form.is_valid() else "",
                                      acting_user=request.user)
    except CollectionError as e:
        return refused(request, e, to)
    messages.success(request, f"The over/short of batch {b.number} is approved: the batch may be deposited.")
    return redirect(to)


DEPOSIT_COLUMNS = ("deposit", "deposited_on", "bank_reference", "batches", "files", "expected", "bank_amount",
                   "difference")


@require_perm(Perm.COLLECT)
def deposits(request, fmt_: str = "html"):
    """The deposit reconciliation: closed batches and posted files (lockbox, processor) against the bank."""
    if fmt_ in ("csv", "xlsx"):
        # Issue 29: past LIST_EXPORT_JOB_ROWS deposits the Excel file is the list_export job (web.listexports)
        job = large_export(request, fmt_, Deposit.objects.count, name="deposit-reconciliation", noun="deposits")
        if job:
            return job
        lines = selectors.deposit_lines(Deposit.objects.all())
        rows = ([line.deposit.number, line.deposit.deposited_on, line.deposit.bank_reference,
                 line.batches_total, line.files_total, line.expected, line.deposit.bank_amount, line.difference]
                for line in lines)
        return table_response(fmt_, name="deposit-reconciliation", sheet="Deposits", columns=DEPOSIT_COLUMNS,
                              rows=rows, money_columns=("batches", "files", "expected", "bank_amount", "difference"),
                              each=export_progress(request))
    form = DepositForm(request.POST or None)
    open_batches, open_files, older_files = selectors.undeposited()
    if request.method == "POST" and form.is_valid():
        cd = form.cleaned_data
        try:
            dep = deposit_create(
                deposited_on=cd["deposited_on"], bank_amount=cd["bank_amount"], bank_reference=cd["bank_reference"],
                batches=list(CashBatch.objects.filter(pk__in=_ids(request.POST.getlist("batch")))),
                files=list(PaymentBatch.objects.filter(pk__in=_ids(request.POST.getlist("file")))),
                acting_user=request.user)
            line = selectors.deposit_lines([dep])[0]
            if line.difference == 0:
                messages.success(request, f"Deposit {dep.number} recorded: it reconciles (${fmt(line.expected)}).")
            else:
                messages.warning(request, f"Deposit {dep.number} recorded, but it does not reconcile: the bank "
                                          f"credited ${fmt(dep.bank_amount)}, ${fmt(abs(line.difference))} "
                                          f"{'more' if line.difference > 0 else 'less'} than the "
                                          f"${fmt(line.expected)} deposited.")
            return redirect("cashier_deposits")
        except CollectionError as e:
            add_refusal(form, e)
    paged = paginate(request, Deposit.objects.all())
    return render(request, "cashier/deposits.html", {
        "form": form, "open_batches": open_batches, "lines": selectors.deposit_lines(paged["page"].object_list),
        "open_files": open_files, "older_files": older_files, "file_days": selectors.UNDEPOSITED_FILE_DAYS, **paged,
        # a refused deposit keeps what was ticked (issue 16 "Forms")
        "ticked_batches": _ids(request.POST.getlist("batch")), "ticked_files": _ids(request.POST.getlist("file"))},
        status=400 if form.errors else 200)


def _ids(values) -> list[int]:
    return [int(v) for v in values if str(v).isdigit()]


DAILY_COLUMNS = ("day", "source", "cashier_or_file", "tender", "count", "total")


@require_perm(Perm.PAYMENT_POST)
def daily(request, fmt_: str = "html"):
    """The daily cash report: the window's receipts by cashier and tender, files posted, batches."""
    day = DayForm(request.GET).value()
    rep = selectors.daily_cash(day)
    if fmt_ in ("csv", "xlsx"):
        rows = [[day, "window", r["cashier"], r["tender_label"], r["count"], r["total"]] for r in rep.by_cashier]
        rows += [[day, "file", f.filename, "", f.rows, f.received] for f in rep.files]
        rows += [[day, "fee", f"{r['cashier']}: {r['kind_label']}", r["tender_label"], r["count"], r["total"]]
                 for r in rep.fees]
        rows.append([day, "total", "", "", rep.receipts_count + sum(f.rows for f in rep.files)
                     + sum(r["count"] for r in rep.fees), rep.total])
        job = large_export(request, fmt_, len(rows), name=f"daily-cash-{day}")  # issue 29 (web.listexports)
        if job:
            return job
        return table_response(fmt_, name=f"daily-cash-{day}", sheet="Daily cash", columns=DAILY_COLUMNS, rows=rows,
                              money_columns=("total",))
    return render(request, "cashier/daily.html", {"day": day, "rep": rep, "form": DayForm(initial={"day": day}),
                                                  "tenders": [(t.label, rep.by_tender[t.value]) for t in Tender],
                                                  "today": timezone.localdate()})


# --- Refund vouchers --------------------------------------------------------------------------------------------

@require_perm(Perm.COLLECT)
def refunds(request):
    from .forms import DecisionForm
    from .models import RefundVoucher

    paged = paginate(request, RefundVoucher.objects.select_related("account", "requested_by", "decided_by"))
    return render(request, "cashier/refunds.html", {
        "vouchers": paged["page"].object_list, **paged,
        "can_approve": request.user.can(Perm.REFUND_APPROVE), "decision_form": DecisionForm()})


@require_perm(Perm.COLLECT)
def refund_new(request, number: str):
    from .forms import RefundRequestForm
    from .refunds import refund_request, refundable

    acct = account_get_for_user(user=request.user, number=number)
    owner = selectors.account_owner_name(acct)
    can = refundable(acct)
    form = RefundRequestForm(request.POST or None, initial={
        "amount": can if can > 0 else None, "payee": owner,
        "payee_address": (acct.parcel.owner.mailing_address if acct.parcel.owner else "")})
    if request.method == "POST" and form.is_valid():
        cd = form.cleaned_data
        try:
            v = refund_request(account=acct, amount=cd["amount"], payee=cd["payee"], payee_address=cd["payee_address"],
                               reason=cd["reason"], acting_user=request.user)
            messages.success(request, f"Refund voucher {v.number} for ${fmt(v.amount)}: waiting for a second "
                                      "person's approval.")
            return redirect("cashier_refunds")
        except CollectionError as e:
            add_refusal(form, e)
    return render(request, "cashier/refund_new.html", {"account": acct, "owner": owner, "form": form,
                                                       "refundable": can}, status=400 if form.errors else 200)


@require_POST
@require_perm(Perm.REFUND_APPROVE)
def refund_decide(request, voucher_id: int, decision: str):
    from .forms import DecisionForm
    from .models import RefundVoucher
    from .refunds import refund_approve, refund_reject

    v = get_object_or_404(RefundVoucher, pk=voucher_id)
    form = DecisionForm(request.POST)
    note = form.cleaned_data["note"] if form.is_valid() else ""
    fn = refund_approve if decision == "approve" else refund_reject
    try:
        fn(voucher=v, note=note, acting_user=request.user)
        messages.success(request, f"Voucher {v.number} {'approved: the refund is posted' if fn is refund_approve else 'rejected'}.")
    except CollectionError as e:  # refused: the list again with the note typed and the error on the voucher's form
        return refused(request, e, reverse("cashier_refunds"))
    return redirect("cashier_refunds")


# --- General ledger export ------------------------------------------------------------------------------------

@require_perm(Perm.COLLECT)
def gl_export(request, fmt_: str = "html"):
    from stormwater.townconfig import town_config

    from .forms import RangeForm
    from .gl import GL_COLUMNS, gl_journal, gl_rows

    today = timezone.localdate()
    form = RangeForm(request.GET or None, initial={"start": today.replace(day=1), "end": today})
    cfg = town_config()
    if not form.is_valid():
        if fmt_ != "html":
            return redirect("cashier_gl")
        return render(request, "cashier/gl.html", {"form": form, "cfg": cfg})
    start, end = form.cleaned_data["start"], form.cleaned_data["end"]
    if fmt_ in ("csv", "xlsx"):
        name = f"general-ledger-{start}-{end}"
        rows = list(gl_rows(start=start, end=end, cfg=cfg))  # the journal's lines: an aggregate, a few dozen
        job = large_export(request, fmt_, len(rows), name=name)  # issue 29 (web.listexports)
        if job:
            return job
        return table_response(fmt_, name=name, sheet="Journal", columns=GL_COLUMNS, rows=rows,
                              money_columns=("debit", "credit"))
    lines = gl_journal(start=start, end=end, cfg=cfg)
    return render(request, "cashier/gl.html", {
        "form": form, "cfg": cfg, "lines": lines, "start": start, "end": end,
        "debits": sum((x.debit for x in lines), 0), "credits": sum((x.credit for x in lines), 0)})


# --- Municipal lien certificates (MGL c.60 §23) ------------------------------------------------------------------

def _parcel_or_error(form):
    """The parcel the request names by parcel id or street address (issue 25); several or none: said at the field."""
    found = selectors.parcels_for_certificate(form.cleaned_data["parcel_id"])
    if len(found) == 1:
        return found[0]
    if not found:
        form.add_error("parcel_id", "No such parcel: no parcel id or street address matches.")
    else:
        form.add_error("parcel_id", "Several parcels match: " + "; ".join(f"{p.parcel_id} ({p.address})"
                                                                        for p in found)
                       + (" …" if len(found) >= 10 else "") + ". Enter the parcel id or the whole address.")
    return None


def _certificate_requested(request, form, **how):
    """The certificate request a valid request form describes (at the counter or online: ``how`` is its channel and,
    at the counter, the fee's reference), or None with the reason on the form (no such parcel, the service's refusal)."""
    from .liens import lien_certificate_request

    parcel = _parcel_or_error(form)
    if parcel is None:
        return None
    cd = form.cleaned_data
    try:
        return lien_certificate_request(parcel=parcel, requester_name=cd["requester_name"],
                                        requester_role=cd["requester_role"], requester_email=cd["requester_email"],
                                        acting_user=request.user, **how)
    except CollectionError as e:
        add_refusal(form, e)
        return None


@require_perm(Perm.COLLECT)
def liens(request):
    """The Collector's list: requests with their ten-day clock, a counter request, the issued certificates."""
    from stormwater.townconfig import town_config

    from .forms import CounterLienRequestForm
    from .models import LienCertificate

    form = CounterLienRequestForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        cd = form.cleaned_data
        with transaction.atomic():  # the request and its fee taken at the window, together or not at all
            cert = _certificate_requested(request, form, channel=cd["channel"],
                                          fee_reference="" if cd["fee_tender"] else cd["fee_reference"])
            fee = None
            if cert is not None and cd["fee_tender"]:
                try:
                    fee = lien_fee_receipt(cert=cert, tender=cd["fee_tender"], reference=cd["fee_reference"],
                                           payer=cd["requester_name"], acting_user=request.user)
                except CollectionError as e:
                    transaction.set_rollback(True)
                    add_refusal(form, FieldRefusal(str(e).replace("reference: ", "", 1), field="fee_reference"))
                    cert = None
        if cert is not None:
            messages.success(request, f"Request {cert.number} recorded: to issue by {cert.due_on}."
                             + (f" Fee receipt {fee.number}: ${fmt(fee.amount)} into your batch." if fee else ""))
            return redirect("cashier_lien", cert_id=cert.pk)
    certs = LienCertificate.objects.select_related("parcel")
    paged = paginate(request, certs.filter(issued_on__isnull=False).order_by("-issued_on", "-id"))
    return render(request, "cashier/liens.html", {
        "form": form, "open": certs.filter(issued_on__isnull=True).order_by("due_on", "id"),
        "issued": paged["page"].object_list, **paged,
        "fee": town_config().lien_certificate_fee, "today": timezone.localdate()}, status=400 if form.errors else 200)


def _cert_for(request, cert_id: int):
    from .models import LienCertificate

    cert = get_object_or_404(LienCertificate.objects.select_related("parcel", "requested_by", "issued_by"), pk=cert_id)
    if not request.user.can(Perm.COLLECT) and cert.requested_by_id != request.user.pk:
        raise Http404("No such certificate.")
    return cert


@require_perm()
def lien_detail(request, cert_id: int):
    from .liens import lien_certificate_issue

    cert = _cert_for(request, cert_id)
    if request.method == "POST":
        if not request.user.can(Perm.COLLECT):
            raise Http404("No such certificate.")
        try:
            lien_certificate_issue(cert=cert, fee_reference=request.POST.get("fee_reference", ""),
                                   acting_user=request.user)
            messages.success(request, f"Certificate {cert.number} issued.")
            return redirect("cashier_lien", cert_id=cert.pk)
        except CollectionError as e:  # refused: the certificate again with the reference typed, the error at it
            return refused(request, e, request.path)
    from .forms import FeeForm

    return render(request, "cashier/lien.html", {"c": cert, "f": cert.figures, "staff": request.user.can(Perm.COLLECT),
                                                 "today": timezone.localdate(), "fee_form": FeeForm(),
                                                 "fee_receipt": getattr(cert, "fee_receipt", None)})


@require_POST
@require_perm(Perm.COLLECT)
def lien_fee(request, cert_id: int):
    """Receipt the certificate's fee at the window (issue 25): into the cashier's open batch."""
    from .forms import FeeForm

    cert = _cert_for(request, cert_id)
    to = reverse("cashier_lien", args=[cert.pk])
    form = FeeForm(request.POST)
    if not form.is_valid():
        return refused(request, form_refusal(form, "tender: choose how the fee is paid."), to)
    try:
        fee = lien_fee_receipt(cert=cert, tender=form.cleaned_data["tender"], reference=form.cleaned_data["reference"],
                               payer=form.cleaned_data["payer"] or cert.requester_name, acting_user=request.user)
    except CollectionError as e:
        return refused(request, e, to)
    messages.success(request, f"Fee receipt {fee.number}: ${fmt(fee.amount)} into batch {fee.batch.number}.")
    return redirect(to)


@require_perm()
def lien_pdf(request, cert_id: int):
    from .documents import certificate_pdf

    cert = _cert_for(request, cert_id)
    if not cert.issued_on:
        raise Http404("Not issued yet.")
    return download(certificate_pdf(cert), name=cert.number, ext="pdf")


@require_perm()
def lien_request_online(request):
    """Anyone signed in (a buyer, a closing attorney, an owner) may request a certificate online."""
    from stormwater.townconfig import town_config

    from .forms import LienRequestForm
    from .models import LienCertificate, LienChannel

    form = LienRequestForm(request.POST or None, initial={"requester_email": request.user.email,
                                                          "requester_name": request.user.get_full_name()})
    if request.method == "POST" and form.is_valid():
        cert = _certificate_requested(request, form, channel=LienChannel.ONLINE)
        if cert is not None:
            messages.success(request, f"Request {cert.number} received. The Collector issues the certificate by "
                                      f"{cert.due_on} (MGL c.60 §23) once the ${fmt(cert.fee)} fee is paid.")
            return redirect("cashier_lien", cert_id=cert.pk)
    mine = LienCertificate.objects.filter(requested_by=request.user).select_related("parcel")[:50]
    return render(request, "cashier/lien_request.html", {"form": form, "mine": mine,
                                                         "fee": town_config().lien_certificate_fee},
                  status=400 if form.errors else 200)
