"""Web pages of the Stormwater Management Account: overview, budget entry, the rate model and its
adoption, and the reports. Thin: parse, call one service or selector, render."""
from __future__ import annotations

from datetime import date
from functools import partial

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.formats import day as show_day
from stormwater.rules.money import fmt_ratio, fmt_usd
from stormwater.web.files import csv_text, download, xlsx_bytes
from stormwater.web.listexports import large_export
from stormwater.web.forms import add_refusal
from stormwater.web.postdata import whole_value

from . import charts, exports, services
from .forms import (USE_LEGEND, AdoptForm, BudgetForm, BudgetLineForm, OtherRevenueForm, RateModelForm,
                    ReceiptsForm)
from .lists import BudgetLineList, OtherRevenueList
from .models import BudgetLine, OtherRevenue
from .selectors import (budget_summary, fiscal_year_bounds, fiscal_year_of, rate_model_run, receipts_by_period,
                        receipts_total, revenue_vs_budget)


def _fy(fy: int) -> int:
    """A fiscal year in the range the services accept, else 404 (no 500 on /fund/0/)."""
    if not 2000 <= fy <= 2100:
        raise Http404("No such fiscal year.")
    return fy


def _rvb_chart(rvb):
    return charts.hbars([(r.source, [r.budgeted, r.actual]) for r in rvb.rows], series=["Budgeted", "Actual to date"])


@require_perm(Perm.FUND_VIEW)
def fund_home(request):
    return redirect("fund_overview", fy=fiscal_year_of(date.today()))


@require_perm(Perm.FUND_VIEW)
def fund_overview(request, fy: int):
    fy = _fy(fy)
    can_edit = request.user.can(Perm.FUND_BUDGET)
    lines = BudgetLineList(request, fiscal_year=fy, can_edit=can_edit)
    other = OtherRevenueList(request, fiscal_year=fy, can_edit=can_edit)
    if (resp := lines.export_response() or other.export_response()) is not None:
        return resp
    today = date.today()
    rvb = revenue_vs_budget(fy, as_of=today)
    s = rvb.summary
    return render(request, "fund/overview.html", {"lines": lines, "other": other,
        "fy": fy, "s": s, "rvb": rvb, "chart": _rvb_chart(rvb), "today": today,
        "receipts_to_date": rvb.fee_receipts, "can_edit": request.user.can(Perm.FUND_BUDGET),
        "use_legend": USE_LEGEND,
        "category_chart": charts.hbars([(label, [amt]) for _, label, amt in s.by_category], series=["Budget"])})


def _budget_form(request, form, *, save, saved: str, title: str, fy: int, delete_url=None, legend=False):
    """The budget forms' one flow: a valid POST runs ``save(**cleaned_data)`` (a FundError goes onto
    the form) and returns to the year's overview with ``saved``; otherwise the form page."""
    if request.method == "POST" and form.is_valid():
        try:
            save(**form.cleaned_data)
        except services.FundError as e:
            add_refusal(form, e)  # at its field when it names one (issue 16 "Forms")
        else:
            messages.success(request, saved)
            return redirect("fund_overview", fy=fy)
    return render(request, "fund/form.html", {"title": title, "form": form, "back": reverse("fund_overview", args=[fy]),
                                              "fy": fy, "delete_url": delete_url,
                                              "use_legend": USE_LEGEND if legend else None},
                  status=400 if form.errors else 200)


@require_perm(Perm.FUND_BUDGET)
def fund_budget_edit(request, fy: int):
    fy = _fy(fy)
    s = budget_summary(fy)
    b = s.budget
    form = BudgetForm(request.POST or None, initial={
        "reserve_use": b.reserve_use if b else 0, "approved_on": b.approved_on if b else None,
        "notes": b.notes if b else ""})
    return _budget_form(request, form, save=partial(services.budget_update, fiscal_year=fy, acting_user=request.user),
                        saved=f"FY{fy} budget saved.", title=f"FY{fy} budget: reserves and approval", fy=fy)


@require_perm(Perm.FUND_BUDGET)
def fund_line_new(request, fy: int):
    fy = _fy(fy)
    form = BudgetLineForm(request.POST or None)
    return _budget_form(request, form,
                        save=partial(services.budget_line_create, fiscal_year=fy, acting_user=request.user),
                        saved="Budget line added.", title=f"FY{fy}: add a budget line", fy=fy, legend=True)


@require_perm(Perm.FUND_BUDGET)
def fund_line_edit(request, line_id: int):
    line = get_object_or_404(BudgetLine.objects.select_related("budget"), pk=line_id)
    fy = line.budget.fiscal_year
    form = BudgetLineForm(request.POST or None, initial={
        "category": line.category, "allowed_use": line.allowed_use, "description": line.description,
        "amount": line.amount})
    return _budget_form(request, form, save=partial(services.budget_line_update, line=line, acting_user=request.user),
                        saved="Budget line saved.", title=f"FY{fy}: budget line", fy=fy,
                        delete_url=reverse("fund_line_delete", args=[line.pk]), legend=True)


@require_POST
@require_perm(Perm.FUND_BUDGET)
def fund_line_delete(request, line_id: int):
    line = get_object_or_404(BudgetLine.objects.select_related("budget"), pk=line_id)
    fy = line.budget.fiscal_year
    services.budget_line_delete(line=line, acting_user=request.user)
    messages.success(request, f"Budget line “{line.description}” removed.")
    return redirect("fund_overview", fy=fy)


@require_perm(Perm.FUND_BUDGET)
def fund_revenue_new(request, fy: int):
    fy = _fy(fy)
    start, end = fiscal_year_bounds(fy)
    today = date.today()
    form = OtherRevenueForm(request.POST or None, initial={"dated": today if start <= today <= end else start})
    return _budget_form(request, form,
                        save=partial(services.other_revenue_create, fiscal_year=fy, acting_user=request.user),
                        saved="Other revenue added.", title=f"FY{fy}: add other revenue", fy=fy)


@require_perm(Perm.FUND_BUDGET)
def fund_revenue_edit(request, revenue_id: int):
    rev = get_object_or_404(OtherRevenue.objects.select_related("budget"), pk=revenue_id)
    fy = rev.budget.fiscal_year
    form = OtherRevenueForm(request.POST or None, initial={
        "kind": rev.kind, "source": rev.source, "amount": rev.amount, "dated": rev.dated, "received": rev.received,
        "notes": rev.notes})
    return _budget_form(request, form,
                        save=partial(services.other_revenue_update, revenue=rev, acting_user=request.user),
                        saved="Other revenue saved.", title=f"FY{fy}: other revenue", fy=fy,
                        delete_url=reverse("fund_revenue_delete", args=[rev.pk]))


@require_POST
@require_perm(Perm.FUND_BUDGET)
def fund_revenue_delete(request, revenue_id: int):
    rev = get_object_or_404(OtherRevenue.objects.select_related("budget"), pk=revenue_id)
    fy = rev.budget.fiscal_year
    services.other_revenue_delete(revenue=rev, acting_user=request.user)
    messages.success(request, f"Other revenue “{rev.source}” removed.")
    return redirect("fund_overview", fy=fy)


# ------------------------------------------------------------------------------------------ rate model

def _rate_model_context(request, form, adopt_form=None):
    ctx = {"form": form, "run": None, "error": None, "adopt_form": adopt_form,
           "can_adopt": request.user.can(Perm.RATES_ADOPT)}
    if form.is_bound and form.is_valid():
        try:
            run = rate_model_run(inputs=form.inputs())
        except ValueError as e:
            ctx["error"] = str(e)
            return ctx
        sol = run.solution
        ctx["run"] = run
        ctx["class_chart"] = charts.hbars(
            [(c.property_class.label.split(" (")[0], [c.gross, c.expected]) for c in sol.revenue.by_class],
            series=["Billed before credits", "Expected collected"], marker=sol.need, marker_label="to raise")
        ctx["block_chart"] = charts.hbars(
            [(f"ERUs {b.first_eru}–{b.last_eru or '…'} × {fmt_ratio(b.coefficient)}", [b.gross]) for b in sol.revenue.by_block],
            series=["Billed by block"])
        ctx["model_hidden"] = [(k, v) for k, v in form.data.items() if k in form.fields]
        if ctx["adopt_form"] is None:
            fy = form.cleaned_data["fiscal_year"]
            start, _ = fiscal_year_bounds(fy)
            ctx["adopt_form"] = AdoptForm(initial={"label": f"FY{fy} stormwater rates", "effective_from": start,
                                                   "adopted_on": date.today()})
    return ctx


@require_perm(Perm.FUND_VIEW)
def fund_rate_model(request):
    today = date.today()
    form = RateModelForm(request.GET) if "fiscal_year" in request.GET else RateModelForm(
        initial=RateModelForm.initial_for(today))
    return render(request, "fund/rate_model.html", _rate_model_context(request, form))


@require_POST
@require_perm(Perm.RATES_ADOPT)
def fund_rate_adopt(request):
    """Adopt the modelled rate as a rate resolution: the Select Board's act (budget/rates ¶D)."""
    form = RateModelForm(request.POST)
    adopt = AdoptForm(request.POST)
    if form.is_valid() and adopt.is_valid():
        a = adopt.cleaned_data
        try:
            res = services.rate_model_adopt(model_inputs=form.inputs(), adoption=services.Adoption(**a),
                                            acting_user=request.user)
        except ValueError as e:
            add_refusal(adopt, e)
        else:
            messages.success(request, f"Resolution “{res.label}” entered: {fmt_usd(res.rate_per_eru)} per ERU, "
                                      f"{fmt_usd(res.small_residential_rate)} flat, effective {show_day(res.effective_from)}.")
            return redirect("resolution_list")
    return render(request, "fund/rate_model.html", _rate_model_context(request, form, adopt), status=400)


# --------------------------------------------------------------------------------------------- reports

def _receipts_form(request):
    today = date.today()
    start, _ = fiscal_year_bounds(fiscal_year_of(today))
    data = request.GET if "start" in request.GET else {"start": start, "end": today, "grouping": "month"}
    return ReceiptsForm(data)


@require_perm(Perm.FUND_VIEW)
def fund_receipts(request):
    form = _receipts_form(request)
    ctx = {"form": form, "periods": None}
    if form.is_valid():
        c = form.cleaned_data
        periods = receipts_by_period(c["start"], c["end"], c["grouping"])
        ctx.update(periods=periods, total=receipts_total(c["start"], c["end"]),
                   chart=charts.vbars([(p.label, p.receipts) for p in periods]),
                   query=request.GET.urlencode() or f"start={c['start']}&end={c['end']}&grouping={c['grouping']}")
    return render(request, "fund/receipts.html", ctx, status=200 if form.is_valid() else 400)


@require_perm(Perm.FUND_VIEW)
def fund_receipts_export(request, fmt: str):
    form = _receipts_form(request)
    if not form.is_valid():
        return HttpResponse("; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items()), status=400,
                            content_type="text/plain; charset=utf-8")
    c = form.cleaned_data
    rows = list(exports.receipt_rows(receipts_by_period(c["start"], c["end"], c["grouping"])))
    name = f"stormwater-receipts-{c['start']}-{c['end']}-{c['grouping']}"
    if fmt == "csv":
        return download(csv_text(exports.RECEIPT_COLUMNS, rows), name=name, ext="csv")
    return large_export(request, fmt, len(rows), name=name, noun="periods") or _xlsx(  # issue 29
        "Receipts", exports.RECEIPT_COLUMNS, rows, name=name)


def _rvb_params(request) -> tuple[int, date]:
    today = date.today()
    try:
        fy = whole_value(request.GET.get("fy"), "fy", lo=2000, hi=2100, default=fiscal_year_of(today))
        as_of = date.fromisoformat(request.GET["as_of"]) if request.GET.get("as_of") else today
    except ValueError:
        fy, as_of = fiscal_year_of(today), today
        if request.GET.get("as_of"):  # a fiscal year out of range alone keeps a good as-of date (as before)
            try:
                as_of = date.fromisoformat(request.GET["as_of"])
            except ValueError:
                pass
    return fy, as_of


@require_perm(Perm.FUND_VIEW)
def fund_revenue_vs_budget(request):
    fy, as_of = _rvb_params(request)
    rvb = revenue_vs_budget(fy, as_of=as_of)
    return render(request, "fund/revenue_vs_budget.html", {"rvb": rvb, "fy": fy, "as_of": as_of,
                                                           "chart": _rvb_chart(rvb)})


@require_perm(Perm.FUND_VIEW)
def fund_revenue_vs_budget_export(request, fmt: str):
    fy, as_of = _rvb_params(request)
    rvb = revenue_vs_budget(fy, as_of=as_of)
    rows = list(exports.rvb_rows(rvb))
    name = f"stormwater-revenue-vs-budget-FY{fy}-{as_of}"
    if fmt == "csv":
        return download(csv_text(exports.RVB_COLUMNS, rows), name=name, ext="csv")
    return large_export(request, fmt, len(rows), name=name) or _xlsx(f"FY{fy}", exports.RVB_COLUMNS, rows,
                                                                      name=name)  # issue 29


def _xlsx(sheet: str, columns, rows: list, *, name: str):
    """A small workbook (the rows in hand) as a download; ``export_rows`` for the list_export job that makes a
    large one (issue 29: ``large_export``)."""
    resp = download(xlsx_bytes(sheet, columns, rows, exports.MONEY_COLUMNS), name=name, ext="xlsx")
    resp.export_rows = len(rows)
    return resp
