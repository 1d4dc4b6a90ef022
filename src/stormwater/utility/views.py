from __future__ import annotations

from datetime import date

from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Sum
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.parcels.models import Parcel
from stormwater.townconfig import town_config
from stormwater.formats import day as show_day
from stormwater.rules.money import fmt_usd
from stormwater.web.confirm import Confirmation, confirm_page, confirmation_needed
from stormwater.web.files import download
from stormwater.web.forms import add_refusal
from stormwater.web.postdata import refused

from . import exports
from .documents import bill_pdf
from .forms import BillRunForm, ResolutionForm
from .lists import BillList, BillRunList, ProblemList
from .billrun import approval_refusal, gone_run_message, preparing_job
from .models import Bill, BillRun, RateResolution, RunState
from .paperless import paperless_count
from .proof import DIFFERENCE_KINDS, ProofDifferences
from .selectors import bill_page_get_for_user, bills_for_user, parcel_fee, resolution_in_force
from .services import (BillingError, bill_run_approve, bill_run_discard, bill_run_mark_mailed, bill_run_prepare_later,
                       bill_run_start, bill_run_void, resolution_adopt)


@require_perm(Perm.RATES_VIEW)
def resolution_list(request):
    return render(request, "utility/resolutions.html", {
        "resolutions": RateResolution.objects.prefetch_related("blocks"),
        "in_force": resolution_in_force(date.today()), "can_adopt": request.user.can(Perm.RATES_ADOPT)})


@require_perm(Perm.RATES_ADOPT)
def resolution_new(request):
    form = ResolutionForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            resolution_adopt(acting_user=request.user, **form.cleaned_data)
        except ValueError as e:
            add_refusal(form, e)
        else:
            messages.success(request, "Resolution entered.")
            return redirect("resolution_list")
    return render(request, "utility/resolution_new.html", {"form": form}, status=400 if form.errors else 200)


@require_perm(Perm.BILLING_VIEW_ALL)
def bill_run_list(request):
    """Every bill run on the one list mechanism (``utility.lists.BillRunList``): period, state, issue dates."""
    lst = BillRunList(request, BillRun.objects.all())
    return lst.export_response() or render(request, "utility/runs.html", {
        "lst": lst, "can_run": request.user.can(Perm.BILLING_RUN)})


MSG_PREPARING = ("The proof of {label} is being prepared in the background (run {run}): its progress shows below, "
                 "and you can go on working meanwhile.")


@require_perm(Perm.BILLING_RUN)
def bill_run_new(request):
    """Start a bill run: its proof is prepared by a background job for a Collector or Director to approve
    (issues 15, 16); the run's page follows the job live."""
    today = date.today()
    fy = today.year + 1 if today.month >= 7 else today.year
    form = BillRunForm(request.POST or None, initial={"fiscal_year": fy, "issue_date": today})
    if request.method == "POST" and form.is_valid():
        label, start, end = form.period()
        try:
            run, created = bill_run_start(period_label=label, period_start=start, period_end=end,
                                          issue_date=form.cleaned_data["issue_date"], acting_user=request.user)
            if run.state == RunState.PREPARING:
                bill_run_prepare_later(run=run, acting_user=request.user)
        except BillingError as e:
            add_refusal(form, e)
        else:
            if not created and run.state == RunState.PROOF:
                messages.info(request, f"A proof of {run.period_label} is already waiting for approval (run {run.pk}, "
                                       f"issue date {run.issue_date:%B %-d, %Y}): approve it, or discard it to "
                                       "prepare another.")
            else:
                messages.success(request, MSG_PREPARING.format(label=run.period_label, run=run.pk))
            return redirect("bill_run_detail", run_id=run.pk)
    return render(request, "utility/run_new.html", {"form": form, "resolution": resolution_in_force(today)},
                  status=400 if form.errors else 200)


DIFF_PAGE = 50


@require_perm(Perm.BILLING_VIEW_ALL)
def bill_run_detail(request, run_id: int):
    run = (BillRun.objects.select_related("resolution", "created_by", "approved_by", "voided_by")
           .filter(pk=run_id).first())
    if run is None:
        # A preparation that found nothing to bill removes its empty run: say what its job found.
        said = gone_run_message(run_id)
        if said is None:
            raise Http404("No such bill run.")
        messages.info(request, said)
        return redirect("bill_run_list")
    user = request.user
    ctx = {"run": run, "exceptions": run.exceptions.select_related("parcel").order_by("parcel__parcel_id"),
           "can_run": user.can(Perm.BILLING_RUN), "can_approve": user.can(Perm.BILLING_APPROVE),
           "second_approver": town_config().bill_run_second_approver, "today": date.today()}
    if run.state == RunState.PREPARING:
        done = run.chunks.aggregate(n=Sum("parcels"))["n"] or 0
        total = Parcel.objects.count()
        ctx.update(done=done, total=total, percent=int(done * 100 / total) if total else 0,
                   preparing_job=preparing_job(run))
    if run.summary:
        kind = request.GET.get("diff", "changed")
        diffs = ProofDifferences(run, kind)
        ctx.update(summary=run.summary, diff_kind=diffs.kind, diff_kinds=DIFFERENCE_KINDS,
                   diffs=Paginator(diffs, DIFF_PAGE).get_page(request.GET.get("dpage")))
    if run.state == RunState.ISSUED:  # issue 17 "Paperless bills": e-mailed, not printed
        ctx["paperless"] = paperless_count(run)
    if run.state == RunState.PROOF and ctx["can_approve"]:
        ctx["approval_refusal"] = approval_refusal(run, user)
    ctx["page"] = Paginator(Bill.all_objects.filter(run=run).select_related("parcel").order_by("number"),
                            100).get_page(request.GET.get("page"))
    return render(request, "utility/run_detail.html", ctx)


def _act(request, run_id: int, act, ok: str, confirm=None):
    """POST one act on a run, then back to its page with what happened (a refusal says why, never a 500: the page
    again with the act's form as it was sent and the error at its input, issue 16 "Forms"). ``confirm(run)``: the
    ``web.confirm.Confirmation`` to ask first (issue 25: a bulk or irreversible act is never one click), or None
    where the act would be refused anyway (it then says why at once)."""
    run = get_object_or_404(BillRun, pk=run_id)
    if request.method != "POST":
        return redirect("bill_run_detail", run_id=run.pk)
    if confirm is not None and confirmation_needed(request):
        asked = confirm(run)
        if asked is not None:
            return confirm_page(request, asked)
    try:
        result = act(run)
    except BillingError as e:
        return refused(request, e, reverse("bill_run_detail", args=[run.pk]))
    else:
        messages.success(request, ok if isinstance(ok, str) else ok(result))
    return redirect("bill_run_detail", run_id=run.pk)


@require_perm(Perm.BILLING_APPROVE)
def bill_run_approve_view(request, run_id: int):
    def confirm(run):
        if run.state != RunState.PROOF:
            return None
        return Confirmation(
            title=f"approve bill run {run.pk} ({run.period_label})", count=run.bill_count, amount=run.total_billed,
            button=f"Approve and issue {run.bill_count:,} bills", back_url=reverse("bill_run_detail", args=[run.pk]),
            lines=[("Bills to issue", f"{run.bill_count:,}"), ("Total billed", fmt_usd(run.total_billed)),
                   ("Issue date", show_day(run.issue_date))],
            what=["Each installment is charged to its account's ledger, credit balances are applied, and the owners "
                  "see their bills. Until the bills are mailed the run can be voided (every charge reversed); after "
                  "that a wrong bill is corrected only by an abatement."])
    return _act(request, run_id, lambda run: bill_run_approve(run=run, acting_user=request.user),
                lambda result: result.message, confirm)


@require_perm(Perm.BILLING_RUN)
def bill_run_prepare_view(request, run_id: int):
    """Continue preparing a proof left half-way (its process stopped): a background job again, which resumes
    after the slices already written."""
    return _act(request, run_id, lambda run: bill_run_prepare_later(run=run, acting_user=request.user),
                lambda started: ("Preparing the proof again in the background: the parcels already done are kept."
                                 if started[1] else "The proof is already being prepared: its progress shows below."))


@require_perm(Perm.BILLING_RUN)
def bill_run_discard_view(request, run_id: int):
    reason = request.POST.get("reason", "")

    def confirm(run):
        if run.state not in (RunState.PREPARING, RunState.PROOF):
            return None  # refused by the service: said at once
        return Confirmation(
            title=f"discard the proof of bill run {run.pk} ({run.period_label})", count=run.bill_count,
            amount=run.total_billed, danger=True, button="Discard the proof",
            back_url=reverse("bill_run_detail", args=[run.pk]),
            lines=[("Bills in the proof", f"{run.bill_count:,}"), ("Total of the proof", fmt_usd(run.total_billed)),
                   ("Reason", reason.strip() or "— none given —")],
            what=["The proof is set aside and never issued: no bill of it is owed or seen by an owner, and it cannot "
                  "be approved afterwards. Its bills stay listed on the run's page as a record; the period can be "
                  "prepared again by a new run."])
    return _act(request, run_id, lambda run: bill_run_discard(run=run, reason=reason, acting_user=request.user),
                "Proof discarded: it was never issued. The period can be prepared again.", confirm)


@require_perm(Perm.BILLING_APPROVE)
def bill_run_void_view(request, run_id: int):
    reason = request.POST.get("reason", "")

    def confirm(run):
        if run.state != RunState.ISSUED or run.mailed_on or not reason.strip():
            return None  # refused by the service: said at once
        return Confirmation(
            title=f"void bill run {run.pk} ({run.period_label})", count=run.bill_count, amount=run.total_billed,
            danger=True, button=f"Void {run.bill_count:,} bills", back_url=reverse("bill_run_detail", args=[run.pk]),
            lines=[("Bills voided", f"{run.bill_count:,}"), ("Charges reversed", fmt_usd(run.total_billed)),
                   ("Reason (staff only)", reason.strip())],
            what=["Every charge of the run is reversed in the ledger (nothing is deleted), its bills and their print "
                  "file are withdrawn, and owners read \"Withdrawn by the Town\" on their ledger. This cannot be "
                  "undone: the period is billed again by a new run."])
    return _act(request, run_id, lambda run: bill_run_void(run=run, reason=reason, acting_user=request.user),
                "Run voided: its charges were reversed. The period can be billed again.", confirm)


@require_perm(Perm.BILLING_RUN)
def bill_run_mailed_view(request, run_id: int):
    def act(run):
        try:
            day = date.fromisoformat(request.POST.get("mailed_on") or "")
        except ValueError:
            raise BillingError("mailed_on: a date (YYYY-MM-DD) is required") from None
        return bill_run_mark_mailed(run=run, mailed_on=day, acting_user=request.user)

    def confirm(run):
        try:
            day = date.fromisoformat(request.POST.get("mailed_on") or "")
        except ValueError:
            return None  # refused by the act: said at once
        if run.state != RunState.ISSUED or run.mailed_on or day < run.issue_date:
            return None  # refused (or already recorded) by the service: said at once
        return Confirmation(
            title=f"record the mailing of bill run {run.pk} ({run.period_label})", count=run.bill_count,
            amount=run.total_billed, button="Record the mailing", back_url=reverse("bill_run_detail", args=[run.pk]),
            lines=[("Bills", f"{run.bill_count:,}"), ("Total billed", fmt_usd(run.total_billed)),
                   ("Mailed on", show_day(day))],
            what=["Once the mailing is recorded the run can no longer be voided: a wrong bill is corrected by an "
                  "abatement."])
    return _act(request, run_id, act, "Mailing recorded: the run can no longer be voided.", confirm)


@require_perm(Perm.BILLING_VIEW_ALL)
def bill_run_export(request, run_id: int, fmt: str):
    run = get_object_or_404(BillRun, pk=run_id, state=RunState.ISSUED)  # a proof is not exported (issue 16)
    if fmt == "xlsx" and exports.run_row_count(run) > settings.LIST_EXPORT_JOB_ROWS:
        # Issue 29: a workbook is whole before its first byte is sent (233 s for 400k rows, past the server's
        # timeout): a large run's Excel file is the page's export job, the same file (jobs/kinds/exports.py).
        from stormwater.jobs.services import job_start

        job = job_start(kind="bill_run_export", params={"run": run.pk, "format": "xlsx"}, acting_user=request.user)
        messages.info(request, "This run is too large to download at once: its Excel file is being made in the "
                               "background. Download it here when it is ready; you can go on working.")
        return redirect("job_detail", job_id=job.pk)
    name = f"stormwater-bills-{run.period_label}-run{run.pk}"
    return exports.run_response(run, fmt, name=name)


@require_perm()
def bill_list(request):
    """Every bill the user may see (``bills_for_user``) on the one list mechanism (``utility.lists``)."""
    lst = BillList(request, bills_for_user(user=request.user))
    return lst.export_response() or render(request, "utility/bills.html", {"lst": lst})


@require_perm()
def bill_download(request, number: str):
    bill = bill_page_get_for_user(user=request.user, number=number)
    base = request.build_absolute_uri("/").rstrip("/")
    return download(bill_pdf(bill, base_url=base), name=f"stormwater-bill-{bill.number}", ext="pdf")


@require_perm(Perm.BILLING_RUN)
def billing_problems(request):
    """Parcels the next bill run could not bill, with why (never a silent $0)."""
    today = date.today()
    lst = ProblemList(request, as_of=today)
    return lst.export_response() or render(request, "utility/problems.html", {"lst": lst, "today": today})


