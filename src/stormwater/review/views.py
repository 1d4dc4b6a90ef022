from __future__ import annotations

import json
import re

import yaml

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.urls import reverse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.web.files import download
from stormwater.web.forms import FieldRefusal
from stormwater.web.postdata import refused

from .documents import review_pdf
from .forms import BmpTableForm, RetireForm, ReviewForm, SwmmImportForm
from .lists import ReviewList
from .models import BmpTable
from .plan import PlanError, plan_check, plan_load_text
from .planform import (apply_row_action, blank_state, error_name, layout, plan_dict_from_state, state_from_plan_dict,
                       state_from_post)
from .plots import PlotNotFound
from .stageplots import plot_svg
from .swmm import SwmmInputError, plan_from_inp
from .swmm_infiltration import design_depths_from_pfds
from .swmm import title_of as swmm_title_of
from .present import report_view
from .selectors import applicant_comparison, bmp_tables_in_force, review_get_for_user, reviews_for_user
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
            # At its input (issue 30): the case number, else the plan as it was given (the file or the pasted text).
            lead = str(e).partition(":")[0]
            form.add_error("case_number" if lead == "case" else "plan_file" if d["input_name"] else "plan_text", str(e))
        else:
            messages.success(request, f"Review {review.pk} ran: {review.get_overall_display()}.")
            return redirect("review_detail", review_id=review.pk)
    if form.errors and request.FILES:
        # A browser never puts a chosen file back: say so at the input (issue 16 "Forms", as gis_import_new does).
        form.add_error("plan_file", "A file is not kept when the form is refused: choose it again.")
    return render(request, "review/new.html", {"form": form, "tables": bmp_tables_in_force()},
                  status=400 if form.errors else 200)


def _form_context(state: dict, errors: dict[str, str]) -> dict:
    from stormwater.engineering.runoff import curve_number_rows
    from stormwater.engineering.tc import sheet_flow_manning_n_table

    covers = [("", "— cover —")] + [(k, f"{k} — {r.description} (Table {r.table})") for k, r in curve_number_rows().items()]
    return layout(state, errors, cover_choices=covers, sheet_surfaces=list(sheet_flow_manning_n_table()))


@require_perm(Perm.REVIEW_RUN)
def review_form(request, review_id: int | None = None):
    """The plan as a web form (issue 19): every field checked at its field, then run like an upload."""
    errors: dict[str, str] = {}
    meta = {"title": "", "case_number": ""}
    if request.method == "POST":
        state = state_from_post(request.POST)
        meta = {k: (request.POST.get(k) or "").strip()[:300] for k in meta}
        add, remove = request.POST.get("add", ""), request.POST.get("remove", "")
        if add or remove:
            apply_row_action(state, add=add, remove=remove)
        else:
            data = plan_dict_from_state(state)
            _plan, problems = plan_check(data)
            for e in problems:
                errors.setdefault(error_name(str(e)), str(e))
            if not errors:
                try:
                    review = review_run(input_text=yaml.safe_dump(data, sort_keys=False, allow_unicode=True),
                                        input_name="plan-form.yaml", title=meta["title"],
                                        case_number=meta["case_number"], acting_user=request.user)
                except ReviewInputError as e:
                    errors[error_name(str(e))] = str(e)
                else:
                    messages.success(request, f"Review {review.pk} ran: {review.get_overall_display()}.")
                    return redirect("review_detail", review_id=review.pk)
    elif review_id is not None:
        review = review_get_for_user(user=request.user, review_id=review_id)
        try:
            data, _fmt = plan_load_text(review.input_text, name=review.input_name)
        except PlanError:
            data = {}
        state = state_from_plan_dict(data)
        meta["title"] = review.title
        meta["case_number"] = review.case.number if review.case else ""
    else:
        state = blank_state()
    form = _form_context(state, errors)
    summary = [{"message": m, "anchor": "f-" + re.sub(r"[^A-Za-z0-9]+", "-", k).strip("-")} for k, m in errors.items()]
    return render(request, "review/form.html", {"f": form, "meta": meta, "errors": summary, "source": review_id},
                  status=400 if errors else 200)


@require_perm(Perm.REVIEW_RUN)
def review_import_swmm(request):
    """An applicant's EPA SWMM 5 model → a plan (and a review when it is complete), re-run with SWMM."""
    form = SwmmImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            # A Horton / Green-Ampt subarea's CN is fitted on the review's own design storms when the PFDS file
            # comes with the model (issue 31), else on 3, 5 and 8 in.
            depths = design_depths_from_pfds(d["pfds_file"]) if d["pfds_file"] else None
            data, notes = plan_from_inp(d["post_file"], pre_text=d["pre_file"] or None,
                                        name=request.FILES["post_file"].name,
                                        **({"reference_depths_in": depths} if depths else {}))
        except SwmmInputError as e:
            form.add_error("post_file", str(e))
        else:
            area = sum(float(s["area_acres"]) for s in data["post"])
            title = d["title"] or swmm_title_of(d["post_file"]) or "SWMM model"
            data["project"] = {"name": title[:300], "disturbance_acres": float(d["disturbance_acres"] or area),
                               "previously_developed_with_impervious": False}
            if d["disturbance_acres"] is None:
                data["swmm"]["notes"].append(f"land disturbed assumed to be the modelled area, {area:g} acres")
            if d["pfds_file"]:
                data["rainfall"] = {"storm_type": "III", "storms_years": [2, 10, 100], "pfds_csv": d["pfds_file"]}
            if data["pre"] and d["pfds_file"]:
                try:
                    review = review_run(input_text=yaml.safe_dump(data, sort_keys=False, allow_unicode=True),
                                        input_name=f"{request.FILES['post_file'].name}.plan.yaml", title=title,
                                        case_number=d["case_number"], acting_user=request.user)
                except ReviewInputError as e:
                    form.add_error(None, str(e))
                else:
                    messages.success(request, f"Review {review.pk} ran from the SWMM model: {review.get_overall_display()}.")
                    return redirect("review_detail", review_id=review.pk)
            else:
                missing = [x for x, ok in (("the pre-development subcatchments", bool(data["pre"])),
                                           ("the rainfall (PFDS file or upper bounds)", bool(d["pfds_file"]))) if not ok]
                messages.info(request, "The SWMM model was read. Add " + " and ".join(missing) +
                              ", then run the review.")
                state = state_from_plan_dict(data)
                if not data["pre"]:
                    state["pre"] = [{"id": "", "area_acres": "", "to": data["design_points"][0]["id"], "cover": [{}],
                                     "tc": [{"flow": "sheet"}]}]
                state.setdefault("rainfall", {"storm_type": "III"})
                return render(request, "review/form.html", {
                    "f": _form_context(state, {}), "meta": {"title": title, "case_number": d["case_number"]},
                    "errors": [], "source": None, "action": reverse("review_form")})
    return render(request, "review/import_swmm.html", {"form": form}, status=400 if form.errors else 200)


@require_perm(Perm.REVIEW_RUN)
def review_detail(request, review_id: int):
    review = review_get_for_user(user=request.user, review_id=review_id)
    view = report_view(review.results, plot_src=lambda storm, node: reverse(
        "review_plot", kwargs={"review_id": review.pk, "storm": storm, "node": node}))
    docs = list(review.case.documents.filter(tag="hydrocad_report")) if review.case else []
    return render(request, "review/detail.html", {"review": review, "r": review.results, "v": view,
                                                  "hydrocad_docs": docs, "cmp": applicant_comparison(review=review)})


@require_perm(Perm.REVIEW_RUN)
def review_report_pdf(request, review_id: int):
    review = review_get_for_user(user=request.user, review_id=review_id)
    return download(review_pdf(review), name=f"engineering-review-{review.pk}", ext="pdf")


@require_perm(Perm.REVIEW_RUN)
def review_plot(request, review_id: int, storm: str, node: str):
    """One node's hydrographs for one storm, as SVG (drawn from the stored results; deterministic)."""
    review = review_get_for_user(user=request.user, review_id=review_id)
    try:
        svg = plot_svg(review.results, storm, node)
    except PlotNotFound:
        raise Http404("no such plot") from None
    resp = HttpResponse(svg, content_type="image/svg+xml; charset=utf-8")
    resp["Cache-Control"] = "private, max-age=3600"
    return resp


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
            form.add_error("csv_file", str(e))   # the table's points are what the load refuses (issue 30)
        else:
            messages.success(request, f"Loaded {t.label}: {t.summary['curves']} curves.")
            return redirect("bmp_table_detail", table_id=t.pk)
    if form.errors and request.FILES:
        form.add_error("csv_file", "A file is not kept when the form is refused: choose it again.")
    return render(request, "review/table_new.html", {"form": form}, status=400 if form.errors else 200)


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
    to = reverse("bmp_table_detail", kwargs={"table_id": t.pk})
    # Refused: the table's page again with the reason as typed and the error at it (issue 16 "Forms").
    if not form.is_valid():
        return refused(request, FieldRefusal("A reason is required.", "reason"), to)
    try:
        bmp_table_retire(table=t, reason=form.cleaned_data["reason"], acting_user=request.user)
    except ValueError as e:
        return refused(request, e, to)
    messages.success(request, f"{t.label} retired.")
    return redirect("bmp_table_detail", table_id=t.pk)
