from __future__ import annotations

from datetime import date

from django.contrib import messages
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect, render

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.parcels.models import Parcel
from stormwater.web.files import download

from . import exports
from .documents import bill_pdf
from .forms import BillRunForm, ResolutionForm
from .lists import BillList
from .models import BillRun, RateResolution
from .selectors import bill_get_for_user, bills_for_user, parcel_fee, resolution_in_force
from .services import BillingError, bill_run_issue, resolution_adopt


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
            form.add_error(None, str(e))
        else:
            messages.success(request, "Resolution entered.")
            return redirect("resolution_list")
    return render(request, "utility/resolution_new.html", {"form": form})


@require_perm(Perm.BILLING_VIEW_ALL)
def bill_run_list(request):
    return render(request, "utility/runs.html", {"runs": BillRun.objects.select_related("resolution"),
                                                 "can_run": request.user.can(Perm.BILLING_RUN)})


@require_perm(Perm.BILLING_RUN)
def bill_run_new(request):
    today = date.today()
    fy = today.year + 1 if today.month >= 7 else today.year
    form = BillRunForm(request.POST or None, initial={"fiscal_year": fy, "issue_date": today})
    if request.method == "POST" and form.is_valid():
        label, start, end = form.period()
        try:
            result = bill_run_issue(period_label=label, period_start=start, period_end=end,
                                    issue_date=form.cleaned_data["issue_date"], acting_user=request.user)
        except BillingError as e:
            form.add_error(None, str(e))
        else:
            if result.run is None:
                messages.info(request, result.message)
                return redirect("bill_run_list")
            messages.success(request, result.message + (f" {len(result.problems)} parcels could not be billed: "
                                                        "see the list below." if result.problems else ""))
            return redirect("bill_run_detail", run_id=result.run.pk)
    return render(request, "utility/run_new.html", {"form": form, "resolution": resolution_in_force(today)})


@require_perm(Perm.BILLING_VIEW_ALL)
def bill_run_detail(request, run_id: int):
    run = get_object_or_404(BillRun.objects.select_related("resolution", "created_by"), pk=run_id)
    bills = Paginator(run.bills.select_related("parcel").order_by("number"), 100).get_page(request.GET.get("page"))
    return render(request, "utility/run_detail.html", {
        "run": run, "page": bills, "exceptions": run.exceptions.select_related("parcel")})


@require_perm(Perm.BILLING_VIEW_ALL)
def bill_run_export(request, run_id: int, fmt: str):
    run = get_object_or_404(BillRun, pk=run_id)
    name = f"stormwater-bills-{run.period_label}-run{run.pk}"
    return download(exports.run_csv(run) if fmt == "csv" else exports.run_xlsx(run), name=name, ext=fmt)


@require_perm()
def bill_list(request):
    """Every bill the user may see (``bills_for_user``) on the one list mechanism (``utility.lists``)."""
    lst = BillList(request, bills_for_user(user=request.user))
    return lst.export_response() or render(request, "utility/bills.html", {"lst": lst})


@require_perm()
def bill_detail(request, number: str):
    bill = bill_get_for_user(user=request.user, number=number)
    return render(request, "utility/bill_detail.html", {"bill": bill, "installments": bill.installments.all()})


@require_perm()
def bill_download(request, number: str):
    bill = bill_get_for_user(user=request.user, number=number)
    return download(bill_pdf(bill), name=f"stormwater-bill-{bill.number}", ext="pdf")


@require_perm(Perm.BILLING_RUN)
def billing_problems(request):
    """Parcels the next bill run could not bill, with why (never a silent $0)."""
    today = date.today()
    problems = []
    for parcel in Parcel.objects.select_related("owner").order_by("parcel_id"):
        pf = parcel_fee(parcel, as_of=today)
        if pf.problem:
            problems.append((parcel, pf.problem))
    return render(request, "utility/problems.html", {"problems": problems, "today": today})


