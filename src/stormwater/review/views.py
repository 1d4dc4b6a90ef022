from __future__ import annotations

import json

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.web.files import download

from .documents import review_pdf
from .forms import BmpTableForm, RetireForm, ReviewForm
from .lists import ReviewList
from .models import BmpTable
from .selectors import bmp_tables_in_force, review_get_for_user, reviews_for_user
from .services import ReviewInputError, bmp_table_load, bmp_table_retire, review_run


@require_perm(Perm.REVIEW_RUN)
def review_list(request):
    """Every review the user may see (``reviews_for_user``) on the one list mechanism (``review.lists``)."""
    lst = ReviewList(request, reviews_for_user(user=request.user))
    return lst.export_response() or render(request, "review/list.html", {"lst": lst, "tables": bmp_tables_in_force()})


@require_perm(Perm.REVIEW_RUN)
def review_new(request):
    form = ReviewForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            review = review_run(input_text=d["input_text"], input_name=d["input_name"], title=d["title"],
                                case_number=d["case_number"], acting_user=request.user)
        except ReviewInputError as e:
            form.add_error(None, str(e))
        else:
            messages.success(request, f"Review {review.pk} ran: {review.get_overall_display()}.")
            return redirect("review_detail", review_id=review.pk)
    return render(request, "review/new.html", {"form": form, "tables": bmp_tables_in_force()})


@require_perm(Perm.REVIEW_RUN)
def review_detail(request, review_id: int):
    review = review_get_for_user(user=request.user, review_id=review_id)
    return render(request, "review/detail.html", {"review": review, "r": review.results})


@require_perm(Perm.REVIEW_RUN)
def review_report_pdf(request, review_id: int):
    review = review_get_for_user(user=request.user, review_id=review_id)
    return download(review_pdf(review), name=f"engineering-review-{review.pk}", ext="pdf")


@require_perm(Perm.REVIEW_RUN)
def review_input(request, review_id: int):
    review = review_get_for_user(user=request.user, review_id=review_id)
    ext = "json" if review.input_format == "json" else "yaml"
    resp = HttpResponse(review.input_text, content_type="text/plain; charset=utf-8")
    resp["Content-Disposition"] = f'attachment; filename="{review.input_name or f"plan-review-{review.pk}.{ext}"}"'
    return resp


@require_perm(Perm.REVIEW_RUN)
def review_results_json(request, review_id: int):
    review = review_get_for_user(user=request.user, review_id=review_id)
    return HttpResponse(json.dumps(review.results, indent=2, ensure_ascii=False),
                        content_type="application/json; charset=utf-8")


@require_perm(Perm.REVIEW_RUN)
def bmp_table_list(request):
    return render(request, "review/tables.html", {
        "tables": BmpTable.objects.select_related("loaded_by", "retired_by"),
        "in_force": {t.pk for t in bmp_tables_in_force()}, "can_load": request.user.can(Perm.BMP_TABLES_LOAD)})


@require_perm(Perm.BMP_TABLES_LOAD)
def bmp_table_new(request):
    form = BmpTableForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            t = bmp_table_load(name=d["name"], source_citation=d["source_citation"], csv_text=d["csv_file"],
                               provisional=d["provisional"], acting_user=request.user)
        except ValueError as e:
            form.add_error(None, str(e))
        else:
            messages.success(request, f"Loaded {t.label}: {t.summary['curves']} curves.")
            return redirect("bmp_table_detail", table_id=t.pk)
    return render(request, "review/table_new.html", {"form": form})


@require_perm(Perm.REVIEW_RUN)
def bmp_table_detail(request, table_id: int):
    t = get_object_or_404(BmpTable.objects.select_related("loaded_by", "retired_by"), pk=table_id)
    return render(request, "review/table_detail.html", {
        "t": t, "in_force": t.pk in {x.pk for x in bmp_tables_in_force()}, "form": RetireForm(),
        "can_load": request.user.can(Perm.BMP_TABLES_LOAD)})


@require_perm(Perm.REVIEW_RUN)
def bmp_table_csv(request, table_id: int):
    t = get_object_or_404(BmpTable, pk=table_id)
    return download(t.csv_text, name=f"bmp-table-{t.pk}-v{t.version}", ext="csv")


@require_POST
@require_perm(Perm.BMP_TABLES_LOAD)
def bmp_table_retire_view(request, table_id: int):
    t = get_object_or_404(BmpTable, pk=table_id)
    form = RetireForm(request.POST)
    if form.is_valid():
        try:
            bmp_table_retire(table=t, reason=form.cleaned_data["reason"], acting_user=request.user)
        except ValueError as e:
            messages.error(request, str(e))
        else:
            messages.success(request, f"{t.label} retired.")
    else:
        messages.error(request, "A reason is required.")
    return redirect("bmp_table_detail", table_id=t.pk)
