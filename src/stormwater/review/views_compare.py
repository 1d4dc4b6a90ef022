"""The applicant's HydroCAD/SWMM figures beside the review (issue 31): typed on a form, one field per node,
storm and figure, or imported as CSV (review/compare.py names the columns). A refused entry keeps what was
typed, names each bad field (the form) or line and field (the CSV), and applies nothing."""
from __future__ import annotations

import math

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm

from .compare import (CSV_COLUMNS, DEFAULT_ELEV_FT, DEFAULT_PEAK_PCT, DEFAULT_VOLUME_PCT, FIELDS, TOLERANCE_SOURCE,
                      FiguresRefused, Tolerances, check_row, figures_from_csv, node_lookup, nodes_of)
from .forms import _read_upload
from .models import ApplicantFigures
from .selectors import applicant_figures_latest, review_get_for_user
from .services import applicant_figures_keep

TOLERANCE_FIELDS = (("peak_tol_pct", "Peaks: flag a difference beyond (%)", DEFAULT_PEAK_PCT, 100.0),
                    ("volume_tol_pct", "Volumes: flag a difference beyond (%)", DEFAULT_VOLUME_PCT, 100.0),
                    ("elev_tol_ft", "Peak elevations: flag a difference beyond (ft)", DEFAULT_ELEV_FT, 5.0))
FIELD_LABELS = {"peak_cfs": "Peak (cfs)", "volume_cf": "Volume (ft³)", "peak_elev_ft": "Peak elevation (ft)"}


def _fmt(x) -> str:
    return "" if x is None else f"{x:g}"


def _tolerances(post, errors: dict[str, str]) -> Tolerances:
    vals = {}
    for name, label, default, hi in TOLERANCE_FIELDS:
        text = (post.get(name) or "").strip()
        try:
            x = float(text) if text else default
        except ValueError:
            errors[name] = f"{label}: “{text}” is not a number"
            continue
        if not (math.isfinite(x) and 0 <= x <= hi):
            errors[name] = f"{label}: between 0 and {hi:g}"
            continue
        vals[name] = x
    return Tolerances(vals.get("peak_tol_pct", DEFAULT_PEAK_PCT), vals.get("volume_tol_pct", DEFAULT_VOLUME_PCT),
                      vals.get("elev_tol_ft", DEFAULT_ELEV_FT))


def _layout(results: dict, values: dict[str, str], errors: dict[str, str]) -> list[dict]:
    """The form's nodes, each with its storms and fields (name ``n<i>-<field>``, the review's number beside)."""
    storms = [str(s["ari_years"]) for s in results.get("rainfall", {}).get("storms", [])]
    out, i = [], 0
    for n in nodes_of(results):
        rows = []
        for y in storms:
            ours = n["storms"].get(y, {})
            fields = [{"name": f"n{i}-{f}", "label": FIELD_LABELS[f] if f != "peak_elev_ft" else f"Peak level: {n['elev_label']}",
                       "value": values.get(f"n{i}-{f}", ""), "error": errors.get(f"n{i}-{f}", ""),
                       "review": _fmt(ours.get(f))}
                      for f in FIELDS if f != "peak_elev_ft" or n["has_elev"]]
            rows.append({"storm": y, "index": i, "fields": fields, "node": n["key"]})
            i += 1
        out.append({**n, "rows": rows})
    return out


def _values_from(figs: ApplicantFigures | None, results: dict) -> dict[str, str]:
    if figs is None:
        return {}
    storms = [str(s["ari_years"]) for s in results.get("rainfall", {}).get("storms", [])]
    index = {(n["key"], y): i for i, (n, y) in enumerate((n, y) for n in nodes_of(results) for y in storms)}
    vals = {}
    for r in figs.rows:
        i = index.get((r["node"], r["storm"]))
        if i is not None:
            vals.update({f"n{i}-{f}": _fmt(r.get(f)) for f in FIELDS if r.get(f) is not None})
    return vals


@require_perm(Perm.REVIEW_RUN)
def review_applicant_figures(request, review_id: int):
    review = review_get_for_user(user=request.user, review_id=review_id)
    results = review.results
    latest = applicant_figures_latest(review=review)
    errors: dict[str, str] = {}
    csv_problems: list[tuple[str, str, str]] = []
    if request.method == "POST":
        values = {k: v for k, v in request.POST.items() if k.startswith("n") or k.endswith(("_pct", "_ft"))}
        tol = _tolerances(request.POST, errors)
        rows: list[dict] = []
        if request.POST.get("kind") == "csv":
            f = request.FILES.get("csv_file")
            if f is None:
                csv_problems = [("file", "", "choose the CSV file")]
            else:
                try:
                    rows = figures_from_csv(_read_upload(f, what="a CSV of the applicant's figures"), results)
                except FiguresRefused as e:
                    csv_problems = e.problems
                except Exception as e:  # noqa: BLE001 — forms.ValidationError from the upload's reading
                    csv_problems = [("file", "", " ".join(getattr(e, "messages", [str(e)])))]
            # the form below keeps the figures last kept (the CSV's are not applied), with the tolerances as typed
            values = {**_values_from(latest, results), **{k: v for k, v in values.items() if not k.startswith("n")}}
        else:
            lookup = node_lookup(results)
            for node in _layout(results, {}, {}):
                for r in node["rows"]:
                    i = r["index"]
                    raw = {f: (request.POST.get(f"n{i}-{f}") or "") for f in FIELDS}
                    row, bad = check_row(results, lookup, f"{node['label']}, {r['storm']}-year", node["key"], r["storm"], raw)
                    for _where, field, msg in bad:
                        errors[f"n{i}-{field}"] = f"{node['label']}, {r['storm']}-year, {FIELD_LABELS.get(field, field)}: {msg}"
                    if row:
                        rows.append(row)
        if not errors and not csv_problems:
            source = ApplicantFigures.Source.CSV if request.POST.get("kind") == "csv" else ApplicantFigures.Source.FORM
            applicant_figures_keep(review=review, rows=rows, tolerances=tol, source=source, acting_user=request.user,
                                   file_name=request.FILES["csv_file"].name if source == "csv" else "")
            messages.success(request, f"The applicant's figures are kept ({len(rows)} rows): the report shows them "
                                      "beside the review's numbers.")
            return redirect(reverse("review_detail", kwargs={"review_id": review.pk}) + "#rv-applicant")
    else:
        values = _values_from(latest, results)
        if latest is not None:
            values.update(peak_tol_pct=_fmt(latest.peak_tol_pct), volume_tol_pct=_fmt(latest.volume_tol_pct),
                          elev_tol_ft=_fmt(latest.elev_tol_ft))
    tolerances = [{"name": n, "label": lab, "value": values.get(n, _fmt(d)), "error": errors.get(n, "")}
                  for n, lab, d, _hi in TOLERANCE_FIELDS]
    summary = [{"message": m, "anchor": k} for k, m in errors.items()]
    return render(request, "review/applicant.html", {
        "review": review, "nodes": _layout(results, values, errors), "tolerances": tolerances, "errors": summary,
        "csv_problems": csv_problems, "columns": ",".join(CSV_COLUMNS), "source": TOLERANCE_SOURCE, "latest": latest},
        status=400 if errors or csv_problems else 200)
