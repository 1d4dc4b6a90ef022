"""Collector and Finance pages (Ch. 295 Art. IV billing and collection ¶A–¶D). Thin: parse, call one
service, render."""
from __future__ import annotations

from dataclasses import replace
from datetime import date
from urllib.parse import urlencode

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.formats import day as show_day
from stormwater.parcels.models import Parcel
from stormwater.rules.money import fmt_usd
from stormwater.townconfig import town_config
from stormwater.utility.documents import render_pdf
from stormwater.utility.models import Account, BillRun
from stormwater.utility.selectors import bill_installments, bill_page_get_for_user
from stormwater.web.files import csv_response, download, table_response
from stormwater.web.listexports import export_progress, large_export
from stormwater.web.confirm import Confirmation, confirm_page, confirmation_needed
from stormwater.web.once import submit_once
from stormwater.web.paging import paginate
from stormwater.web.forms import FieldRefusal, add_refusal, form_refusal
from stormwater.web.postdata import date_value, record_ids, refused

from . import exports, online
from .access import account_get_for_user, accounts_for_user
from .forms import (AsOfForm, BackBillForm, BatchForm, CloseForm, CommitForm, LienPaidForm, PaymentForm, ReverseForm,
                    duplicate_message)
from .ledger import account_position
from .owed import ledger_entries_for_user
from .lists import AccountList, CommitmentMadeList, DemandServedList, PaymentList
from .reportlists import AgingList, CommitmentList, DemandList
from .models import Commitment, CommitmentLine, Demand, Payment
from . import selectors
from .processor import processor_file_post
from .selectors import AT_ENTRY
from .services import (BatchRejected, CollectionError, DuplicateSuspected, back_bill_issue, closed_through, commitment_create,
                       demand_serve, lien_paid_record, payment_batch_post, payment_post, payment_reverse,
                       period_close)


@require_perm(Perm.PAYMENT_POST)
@submit_once
def collections_home(request):
    pay_form = PaymentForm(prefix="pay")
    batch_form = BatchForm(prefix="batch")
    status = 200
    if request.method == "POST" and "pay-account" in request.POST:
        pay_form = PaymentForm(request.POST, prefix="pay", ask_duplicate="pay-confirm_duplicate" in request.POST)
        if pay_form.is_valid():
            cd = pay_form.cleaned_data
            acct = Account.objects.filter(number=cd["account"].strip()).first()
            if acct is None:
                pay_form.add_error("account", f"No account {cd['account']!r}.")
            else:
                try:
                    p = payment_post(account=acct, amount=cd["amount"], received_on=cd["received_on"],
                                     method=cd["method"], reference=cd["reference"], acting_user=request.user,
                                     confirm_duplicate=bool(cd.get("confirm_duplicate")), duplicates=AT_ENTRY)
                    messages.success(request, f"Posted {fmt_usd(p.amount)} to {acct.number}.")
                    return redirect("collections_home")
                except DuplicateSuspected as e:
                    # The same payment entered twice? Ask, keeping what was typed (issue 16 "confirm").
                    pay_form = PaymentForm(request.POST, prefix="pay", ask_duplicate=True)
                    pay_form.is_valid()
                    pay_form.add_error("confirm_duplicate", duplicate_message(e.matches))
                    status = 400
                except CollectionError as e:
                    pay_form.add_error(None, str(e))
    elif request.method == "POST":
        batch_form = BatchForm(request.POST, request.FILES, prefix="batch")
        if batch_form.is_valid():
            f = batch_form.cleaned_data["file"]
            try:
                post = processor_file_post if batch_form.cleaned_data.get("kind") == "processor" else payment_batch_post
                r = post(filename=f.name, content=f.read(), acting_user=request.user,
                         dry_run=bool(batch_form.cleaned_data.get("check_only")))
                (messages.info if r.already_posted or r.dry_run else messages.success)(request, r.message)
                return redirect("collections_home")
            except BatchRejected as e:
                for err in e.errors:
                    batch_form.add_error(None, err)
    return render(request, "receivables/home.html", {
        "pay_form": pay_form, "batch_form": batch_form, "closed_through": closed_through(),
        "payments": Payment.objects.select_related("account", "batch", "reversal")[:25],
        "payment_count": Payment.objects.count(), "test_processor": online.test_page_on()},
        status=400 if pay_form.errors or batch_form.errors else status)  # a refused file or payment: 400 (issue 26)


@require_perm()
def account_statement(request, number: str):
    account = account_get_for_user(user=request.user, number=number)
    as_of = AsOfForm(request.GET).day()
    pos = account_position(account, as_of=as_of)
    pay = pay_context(account, today=date.today()) if as_of == date.today() else {}  # paying is today's act
    return render(request, "receivables/account.html", {
        "account": account, "pos": pos, "as_of": as_of, **pay,
        "entries": ledger_entries_for_user(account, user=request.user, as_of=as_of),
        "payments": account.payments.select_related("reversal"), "can_reverse": request.user.can(Perm.COLLECT),
        "reverse_form": ReverseForm(), **_paperless_context(request.user, account)})


@require_perm()
def bill_detail(request, number: str):
    """A bill's page (/bills/<number>/): the bill, its installments, whether it is paid (``selectors.bill_standing``)
    and the "Pay" button. Here rather than in the utility because it reads collections (the utility sits below)."""
    bill = bill_page_get_for_user(user=request.user, number=number)
    today = date.today()
    standing = selectors.bill_standing(bill, as_of=today)
    pay = pay_context(bill.account, today=today, bill=bill)
    if pay.get("pay_pending") and standing.status != "paid":  # the processor took it; the ledger has not yet
        standing = replace(standing, status="pending_settlement", label="Paid online, pending settlement")
    return render(request, "utility/bill_detail.html", {"bill": bill, "installments": bill_installments(bill),
                                                        "standing": standing,
                                                        **pay})


def pay_context(account, *, today: date, bill=None) -> dict:
    """The "Pay" button's amounts and links (issue 17; ``selectors.pay_offer``): the amount due now, the whole balance
    as a second link where the town allows it, and the credit when the account holds more than it owes. No links when
    nothing is due (never a negative or $0 amount) or without a processor. The links lead to the Town's confirmation
    page (issue 25, ``payviews.pay_confirm``), which hands off to the processor; online payments the processor took
    but whose settlement has not posted (``online.pending``) are said, and no second payment of them is offered."""
    if bill is not None and (bill.run.state != "issued" or getattr(bill, "voided", False)):
        return {}
    cfg = town_config()
    kind = online.processor()
    offer = selectors.pay_offer(account, as_of=today, bill=bill)
    pending = online.pending(account, bill=bill)
    pending_total = sum((o.amount for o in pending), 0)
    query = {"bill": bill.number} if bill is not None else {}

    def link(amount, **more):
        if amount <= 0 or kind is None or pending_total >= offer.due_now:
            return None
        return reverse("pay_confirm", args=[account.number]) + ("?" + urlencode({**query, **more})
                                                                  if query or more else "")
    return {"offer": offer, "pay_url": link(offer.due_now), "pay_test": kind == online.TEST,
            "pay_all_url": link(offer.balance, whole="1") if cfg.pay_whole_balance_online and offer.more_than_due
            else None, "pay_pending": pending, "pay_pending_total": pending_total}


def _paperless_context(user, account) -> dict:
    """How the account's bills go out (issue 17 "Paperless bills"), and the office's form to change it."""
    from stormwater.portal.forms import PaperlessForm

    from .mailing import billed_owner

    owner = billed_owner(account)
    if owner is None:
        return {}
    form = (PaperlessForm(initial={"paperless": owner.paperless, "email": owner.email}, auto_id="id_pl_%s")
            if user.can(Perm.BILLING_RUN) else None)
    return {"bill_owner": owner, "paperless_form": form}


@require_POST
@require_perm(Perm.BILLING_RUN)
def account_paperless(request, number: str):
    """The office records an owner's choice of bills by e-mail only (or paper again) for them (issue 17)."""
    from stormwater.parcels.services import owner_paperless_set
    from stormwater.portal.forms import PaperlessForm

    from .mailing import billed_owner

    account = account_get_for_user(user=request.user, number=number)
    to = reverse("account_statement", args=[account.number])
    owner = billed_owner(account)
    form = PaperlessForm(request.POST)
    if owner is None:
        messages.error(request, "This account has no record owner.")
    elif not form.is_valid():  # refused: the account page again with what was typed, the error at the field
        return refused(request, form_refusal(form, " ".join(e for errs in form.errors.values() for e in errs)), to)
    else:
        try:
            owner_paperless_set(owner=owner, paperless=form.cleaned_data["paperless"], email=form.cleaned_data["email"],
                                acting_user=request.user)
        except ValueError as e:
            return refused(request, e, to)
        else:
            messages.success(request, f"{owner.name}: bills " + ("by e-mail only." if form.cleaned_data["paperless"]
                                                                 else "on paper, by mail."))
    return redirect(to)


@require_POST
@require_perm(Perm.COLLECT)
def payment_reverse_view(request, payment_id: int):
    payment = get_object_or_404(Payment, pk=payment_id)
    form = ReverseForm(request.POST)
    if form.is_valid():
        try:
            if form.cleaned_data.get("returned_check"):
                from stormwater.cashier.returns import returned_check_record

                returned_check_record(payment=payment, reason=form.cleaned_data["reason"],
                                      reversed_on=form.cleaned_data["reversed_on"], acting_user=request.user)
            else:
                payment_reverse(payment=payment, reason=form.cleaned_data["reason"],
                                reversed_on=form.cleaned_data["reversed_on"], acting_user=request.user)
            messages.success(request, f"Payment {payment.pk} reversed.")
        except CollectionError as e:
            return refused(request, e, reverse("account_statement", args=[payment.account.number]))
    else:  # refused: the account page again with the reason typed and the error at the input
        return refused(request, form_refusal(form, "A reason and a date are required to reverse a payment."),
                       reverse("account_statement", args=[payment.account.number]))
    return redirect("account_statement", number=payment.account.number)


@require_perm(Perm.COLLECT)
def demands(request):
    as_of = AsOfForm(request.GET).day()
    if request.method == "POST":
        try:
            served_on = date_value(request.POST.get("served_on"), date.today(), field="served_on")
        except ValueError as e:  # the list again with the date typed and the error at it
            return refused(request, e, request.get_full_path())
        accounts = list(Account.objects.filter(number__in=request.POST.getlist("account")).order_by("number"))
        if accounts and served_on <= date.today() and confirmation_needed(request):
            return confirm_page(request, _demands_confirmation(request, accounts, served_on))
        n, errors = 0, []
        for acct in accounts:
            try:
                demand_serve(account=acct, served_on=served_on, acting_user=request.user)
                n += 1
            except CollectionError as e:
                errors.append(str(e))
        if n:
            messages.success(request, f"Served {n} demand{'s' if n != 1 else ''} dated {show_day(served_on)}. "
                                      "“Make the print file” below prints the day's demands in one PDF.")
        for e in errors:
            messages.error(request, e)
        return redirect("demands")
    lst = DemandList(request, accounts_for_user(user=request.user))
    served = DemandServedList(request)
    last = Demand.objects.order_by("-served_on").values_list("served_on", flat=True).first()
    return lst.export_response() or served.export_response() or render(request, "receivables/demands.html", {
        "as_of": lst.as_of, "lst": lst, "served": served, "last_served": last,
        "perms_collect": request.user.can(Perm.COLLECT)})


@require_POST
@require_perm(Perm.COLLECT)
def demands_print(request):
    """Start the print file of the demands served on a day (issue 25; the job ``demands_pdf``); refused, the demands
    page again with the date typed and the error at it."""
    from stormwater.jobs.registry import JobParamError
    from stormwater.jobs.services import job_start

    to = reverse("demands")
    try:
        day = date_value(request.POST.get("served_on"), None, field="served_on")
        if day is None:
            raise FieldRefusal("served_on: the day the demands were mailed", field="served_on")
        job = job_start(kind="demands_pdf", params={"served_on": str(day)}, acting_user=request.user)
    except (ValueError, JobParamError) as e:
        return refused(request, e, to)
    messages.success(request, f"Started: {job.title} (job {job.pk}). The file is on the job's page when done.")
    return redirect("job_detail", job_id=job.pk)


def _owed_by(account_ids, as_of: date):
    """What the accounts owe on the day, "Due now" summed (the positions SQL, one statement)."""
    from .positions import AccountFilter, AccountReport

    return AccountReport("all", as_of=as_of, accounts=AccountFilter(ids=list(account_ids))).totals().total


def _demands_confirmation(request, accounts, served_on: date) -> Confirmation:
    from stormwater.utility.selectors import resolution_in_force

    res = resolution_in_force(served_on)
    n = len(accounts)
    lines = [("Demands to serve", f"{n:,}"), ("Mailed on", show_day(served_on)),
             ("Owed now by these accounts", fmt_usd(_owed_by([a.pk for a in accounts], served_on)))]
    if res is not None:
        lines.append(("Demand charges added", f"{n:,} × {fmt_usd(res.demand_charge)} = "
                                              f"{fmt_usd(res.demand_charge * n)}"))
    return Confirmation(
        title=f"serve {n:,} demand{'s' if n != 1 else ''}", count=n, button=f"Serve {n:,} demand{'s' if n != 1 else ''}",
        back_url=request.get_full_path(), lines=lines,
        what=["Each account is charged the demand charge (Ch. 295 Art. IV billing ¶D; Chapter 189) and its owner is "
              "sent the demand (e-mailed where an address is on file). A demand served is not taken back: a wrong "
              "one is corrected by an abatement. Fourteen days after mailing what is still owed may be committed "
              "to the tax bill as a lien."])


@require_perm(Perm.COLLECT)
def demand_pdf(request, demand_id: int):
    d = get_object_or_404(Demand.objects.select_related("account__parcel__owner", "account__unit__owner", "resolution"), pk=demand_id)
    pos = account_position(d.account, as_of=d.served_on)
    return download(render_pdf("receivables/demand_pdf.html", {"d": d, "pos": pos}), name=f"demand-{d.pk}", ext="pdf")


@require_perm(Perm.COLLECT)
def commitments(request):
    as_of = AsOfForm(request.GET).day()
    form = CommitForm(request.POST or None, initial={"tax_fiscal_year": as_of.year + 1 if as_of.month >= 7
                                                     else as_of.year})
    if request.method == "POST" and form.is_valid():
        try:
            ds = list(Demand.objects.filter(pk__in=record_ids(request.POST.getlist("demand"), "demand"))
                      .select_related("account"))
            cd = form.cleaned_data
            if ds and cd["committed_on"] <= date.today() and confirmation_needed(request):
                owed = _owed_by({d.account_id for d in ds}, cd["committed_on"])
                return confirm_page(request, Confirmation(
                    title=f"commit {len(ds):,} account{'s' if len(ds) != 1 else ''} to the tax bill", count=len(ds),
                    amount=owed, danger=True, button=f"Commit {len(ds):,} to the Board of Assessors",
                    back_url=request.get_full_path(),
                    lines=[("Demands committed", f"{len(ds):,}"), ("Owed by these accounts", fmt_usd(owed)),
                           ("Tax bill of fiscal year", str(cd["tax_fiscal_year"])),
                           ("Committed on", show_day(cd["committed_on"]))],
                    what=["What each account owes past due leaves the stormwater account as a lien on the annual tax "
                          "bill (Ch. 295 Art. IV billing ¶D). A commitment is not undone here: a lien is closed when "
                          "the tax bill is paid, or abated by the Board."]))
            c = commitment_create(tax_fiscal_year=form.cleaned_data["tax_fiscal_year"],
                                  committed_on=form.cleaned_data["committed_on"], demands=ds, acting_user=request.user)
            messages.success(request, f"Committed {c.lines.count()} accounts to the Board of Assessors.")
            return redirect("commitment_detail", commitment_id=c.pk)
        except (CollectionError, FieldRefusal) as e:
            add_refusal(form, e)
    lst = CommitmentList(request, accounts_for_user(user=request.user))
    made = CommitmentMadeList(request)
    return lst.export_response() or made.export_response() or render(request, "receivables/commitments.html", {
        "as_of": as_of, "form": form, "lst": lst, "made": made}, status=400 if form.errors else 200)


@require_perm(Perm.COLLECT)
def commitment_detail(request, commitment_id: int):
    c = get_object_or_404(Commitment, pk=commitment_id)
    return render(request, "receivables/commitment_detail.html", {
        "c": c, "lines": c.lines.select_related("account__parcel__owner", "account__unit__owner", "demand"), "form": LienPaidForm()})


@require_perm(Perm.COLLECT)
def commitment_export(request, commitment_id: int, fmt: str):
    c = get_object_or_404(Commitment, pk=commitment_id)
    name = f"commitment-FY{c.tax_fiscal_year}-{c.pk}"
    if fmt in ("csv", "xlsx"):
        # Issue 29: past LIST_EXPORT_JOB_ROWS lines the Excel file is the list_export job (web.listexports)
        job = large_export(request, fmt, c.lines.count, name=name, noun="commitment lines")
        if job:
            return job
        return table_response(fmt, name=name, sheet=name, columns=exports.COMMITMENT_COLUMNS,
                              rows=exports.commitment_rows(c), money_columns=exports.COMMITMENT_MONEY,
                              each=export_progress(request))
    lines = c.lines.select_related("account__parcel__owner", "account__unit__owner", "demand")
    return download(render_pdf("receivables/commitment_pdf.html", {"c": c, "lines": lines}), name=name, ext="pdf")


@require_POST
@require_perm(Perm.COLLECT)
def lien_paid(request, line_id: int):
    line = get_object_or_404(CommitmentLine, pk=line_id)
    form = LienPaidForm(request.POST)
    to = reverse("commitment_detail", args=[line.commitment_id])
    if not form.is_valid():  # refused: the commitment again with the line's form as typed, the error at the input
        return refused(request, form_refusal(form), to)
    try:
        lien_paid_record(line=line, paid_on=form.cleaned_data["paid_on"], amount=form.cleaned_data["amount"],
                         acting_user=request.user)
    except CollectionError as e:
        return refused(request, e, to)
    messages.success(request, "Lien closed: paid through the tax bill.")
    return redirect(to)


@require_perm(Perm.COLLECT)
def back_bill(request):
    form = BackBillForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        cd = form.cleaned_data
        parcel = Parcel.objects.filter(parcel_id=cd["parcel_id"].strip()).first()
        if parcel is None:
            form.add_error("parcel_id", "No such parcel.")
        else:
            try:
                bill = back_bill_issue(parcel=parcel, period_start=cd["period_start"], period_end=cd["period_end"],
                                       issue_date=cd["issue_date"], acting_user=request.user)
                messages.success(request, f"Back bill {bill.number} issued: {fmt_usd(bill.amount)}.")
                return redirect("bill_detail", number=bill.number)
            except CollectionError as e:
                add_refusal(form, e)
    return render(request, "receivables/back_bill.html", {"form": form}, status=400 if form.errors else 200)


@require_perm(Perm.COLLECT)
def close_period(request):
    form = CloseForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        through = form.cleaned_data["closed_through"]
        if through <= date.today() and confirmation_needed(request):
            return confirm_page(request, Confirmation(
                title=f"close the books through {show_day(through)}", button="Close the books", danger=True,
                back_url=reverse("close_period"),
                lines=[("Closed through now", show_day(closed_through()) if closed_through() else "never closed"),
                       ("Closed through after", show_day(through)),
                       ("Payments received in the period closed",
                        f"{Payment.objects.filter(received_on__lte=through).count():,}")],
                what=["Nothing can then be posted, reversed or dated on or before that day; a correction is posted "
                      "in the open period. Books once closed are not reopened."]))
        try:
            period_close(closed_through=form.cleaned_data["closed_through"], acting_user=request.user)
            messages.success(request, f"Books closed through {form.cleaned_data['closed_through']}.")
            return redirect("collections_home")
        except CollectionError as e:
            add_refusal(form, e)
    return render(request, "receivables/close.html", {"form": form, "closed_through": closed_through()},
                  status=400 if form.errors else 200)


@require_perm(Perm.BILLING_VIEW_ALL)
def aging_report(request, fmt: str = "html", which: str = "aging"):
    """Aging or the delinquency list as of a day: totals over every account, the rows a page at a time,
    the whole list streamed as CSV or Excel. Set-based (receivables.positions): a constant number of
    queries whatever the number of accounts."""
    if fmt in ("csv", "xlsx"):  # the whole report (the older download URLs); the page's own is ?export=
        as_of = AsOfForm(request.GET).day()
        report = (selectors.aging_report(as_of=as_of) if which == "aging"
                  else selectors.delinquency_report(as_of=as_of))
        name = f"{which}-{as_of}"
        # Issue 29: past LIST_EXPORT_JOB_ROWS accounts the Excel file is the list_export job (web.listexports)
        job = large_export(request, fmt, report.count, name=name, noun="accounts")
        if job:
            return job
        return table_response(fmt, name=name, sheet=name, columns=exports.AGING_COLUMNS,
                              rows=exports.aging_rows(report), money_columns=exports.AGING_MONEY,
                              each=export_progress(request))
    lst = AgingList(request, accounts_for_user(user=request.user), which=which)
    response = lst.export_response()
    if response:
        return response
    totals = lst.report_figures  # with the page's rows: one statement (issue 29)
    peak = max([v for v in totals.buckets.values() if v > 0] + [1])
    bars = [(k, v, int(280 * max(v, 0) / peak)) for k, v in totals.buckets.items()]
    return render(request, "receivables/aging.html", {"as_of": lst.as_of, "which": which, "totals": totals,
                                                      "bars": bars, "lst": lst})


@require_perm(Perm.BILLING_VIEW_ALL)
def water_sewer_export(request, run_id: int):
    run = get_object_or_404(BillRun, pk=run_id)
    return csv_response(exports.WATER_SEWER_COLUMNS, exports.water_sewer_rows(run), name=f"water-sewer-import-run{run.pk}")


@require_perm()
def account_list(request):
    """Every account the user may see (``accounts_for_user``) on the one list mechanism (``receivables.lists``)."""
    lst = AccountList(request, accounts_for_user(user=request.user))
    return lst.export_response() or render(request, "receivables/accounts.html", {"lst": lst})


@require_perm(Perm.BILLING_VIEW_ALL)
def payment_list(request):
    """Every payment posted, with its reversal, on the one list mechanism: filters, totals, exports."""
    lst = PaymentList(request)
    return lst.export_response() or render(request, "receivables/payments.html", {"lst": lst})
