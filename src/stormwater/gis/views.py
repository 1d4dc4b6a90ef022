"""Web pages of the GIS app. Each parses, calls one service or selector, renders."""
from __future__ import annotations

import tempfile
from datetime import date
from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.jobs.models import Job, JobState
from stormwater.jobs.services import job_start
from stormwater.parcels.models import ParcelImpervious
from stormwater.townconfig import map_tiles
from stormwater.web.files import download, paths_hidden
from stormwater.web.forms import FieldRefusal
from stormwater.web.postdata import refused

from . import assessor as assessor_mod
from .forms import ROLE_CHOICES, ChangeForm, UploadForm, assessor_mapping_from_post, layers_mapping_from_post
from .lists import ImportList, SurveyList
from .models import GisImport
from .selectors import (eru_determination, gis_import_get, histogram_svg_bars, import_folder, survey_changes,
                        survey_csv, survey_geopackage, survey_get, surveys, upload_sources)
from .services import ERR_ALREADY, ERR_NOT_CHECKED, gis_import_upload


@require_perm(Perm.GIS_VIEW)
def gis_home(request):
    """The surveys and (for those who import) the imports, each on the one list mechanism (``gis.lists``)."""
    survey_list = SurveyList(request)
    import_list = ImportList(request) if request.user.can(Perm.GIS_IMPORT) else None
    resp = survey_list.export_response() or (import_list.export_response() if import_list else None)
    if resp is not None:
        return resp
    return render(request, "gis/home.html", {
        "survey_list": survey_list, "import_list": import_list, "survey_count": survey_list.count,
        "can_import": request.user.can(Perm.GIS_IMPORT), "change_form": ChangeForm()})


@require_perm(Perm.GIS_IMPORT)
def gis_import_new(request):
    form = UploadForm(request.POST or None, request.FILES or None, initial={"kind": request.GET.get("kind", "layers")})
    if request.method == "POST" and form.is_valid():
        try:
            gi = gis_import_upload(kind=form.cleaned_data["kind"], files=form.cleaned_data["files"],
                                   acting_user=request.user)
        except ValueError as e:
            form.add_error("files", str(e))
        else:
            return redirect("gis_import_detail", import_id=gi.pk)
    if form.errors and request.FILES and "files" not in form.errors:
        # A browser never puts a chosen file back: say so at the input (issue 16 "Forms").
        form.add_error("files", "Choose the file(s) again: a refused form cannot keep them.")
    return render(request, "gis/import_new.html", {"form": form}, status=400 if form.errors else 200)


@require_perm(Perm.GIS_IMPORT)
def gis_import_detail(request, import_id: int):
    gi = gis_import_get(import_id)
    sources = upload_sources(gi) if gi.status != GisImport.Status.IMPORTED else []
    errors: list[str] = []
    if request.method == "POST" and gi.status != GisImport.Status.IMPORTED:
        if gi.kind == GisImport.Kind.LAYERS:
            mapping, errors = layers_mapping_from_post(request.POST, [s for s in sources if s["geometry_type"]])
        else:
            mapping, errors = assessor_mapping_from_post(request.POST)
        if not errors:
            # The check is a dry run of the whole import (for layers, the overlay): a background job, shown live here.
            job_start(kind="gis_import_check", params={"import": gi.pk, "mapping": mapping}, acting_user=request.user)
            messages.success(request, "Checking the import in the background: its progress shows below.")
            return redirect("gis_import_detail", import_id=gi.pk)
        # Refused: the page again with the mapping as it was chosen and the first input in error marked (issue 16).
        return refused(request, FieldRefusal(" ".join(str(e) for e in errors), errors[0].field), request.path)
    ctx = {"gi": gi, "errors": errors, "report": gi.report, "mapping": gi.mapping}
    if gi.kind == GisImport.Kind.LAYERS:
        # A file GDAL cannot open stays on the page with its message (issue 20: it never vanishes without a word).
        errors += [s["error"] for s in sources if s.get("error")]
        polys = [s for s in sources if s["geometry_type"]]
        m = gi.mapping or {}
        chosen = {(d["source"], d["layer"]): ("impervious", d["name"]) for d in m.get("impervious", [])}
        chosen |= {(d["source"], d["layer"]): ("right_of_way", d.get("name") or d["layer"])
                   for d in m.get("right_of_way", [])}
        for i, s in enumerate(polys):
            s["i"] = i
            s["role"], s["name"] = chosen.get((s["source"], s["layer"]), ("", s["layer"]))
            s["key"] = f"{s['source']}|{s['layer']}"
        ctx |= {"sources": polys, "role_choices": ROLE_CHOICES, "today": date.today()}
        return render(request, "gis/import_layers.html", ctx)
    tables = []
    for s in sources:
        path = str(import_folder(gi) / s["source"])
        try:
            t = assessor_mod.read_source(path, s["layer"] or None)
        except ValueError as e:  # unreadable at all (ImportRefused): say so, never a 500, no server path
            errors.append(paths_hidden(str(e)))
            continue
        cols, rows = t.columns, t.rows
        # Errors found while reading (a truncated row…) show now; the check refuses the file until they are fixed.
        errors += [p.summary() for p in t.problems if p.severity == "error"]
        tables.append({"key": f"{s['source']}|{s['layer']}", "label": s["source"] + (f" : {s['layer']}" if s["layer"] else ""),
                       "columns": cols, "rows": len(rows), "guess": (g := assessor_mod.guess_mapping(cols)),
                       "preset": g.get("_preset")})
    current = gi.mapping or (tables[0]["guess"] if tables else {})
    chosen = next((t for t in tables if t["key"] == f"{current.get('source')}|{current.get('layer')}"),
                  tables[0] if tables else None)
    cols = chosen["columns"] if chosen else []
    ctx |= {"tables": tables, "chosen_key": chosen["key"] if chosen else "", "lot_unit": current.get("_lot_unit", "sqft"),
            "target_rows": [(k, label, [(c, c in (current.get(k) or [])) for c in cols])
                            for k, label in assessor_mod.TARGETS.items()],
            "lot_units": [("sqft", "ft²"), ("acres", "acres"), ("sqm", "m²")]}
    return render(request, "gis/import_assessor.html", ctx)


@require_POST
@require_perm(Perm.GIS_IMPORT)
def gis_import_commit(request, import_id: int):
    gi = gis_import_get(import_id)
    if gi.status == GisImport.Status.IMPORTED:
        messages.error(request, ERR_ALREADY)
    elif gi.status != GisImport.Status.CHECKED:
        messages.error(request, ERR_NOT_CHECKED)
    elif Job.objects.filter(kind="gis_import", subject=f"gis.gisimport:{gi.pk}",
                            state__in=[JobState.QUEUED, JobState.RUNNING]).exists():
        messages.info(request, "This import is running already: its progress shows below.")
    else:
        job_start(kind="gis_import", params={"import": gi.pk}, acting_user=request.user)
        messages.success(request, "Importing in the background: its progress shows below; you can go on working.")
    return redirect("gis_import_detail", import_id=gi.pk)


@require_perm(Perm.GIS_VIEW)
def gis_survey_detail(request, survey_id: int):
    survey = survey_get(survey_id)
    qs = ParcelImpervious.objects.filter(survey=survey).select_related("parcel").order_by("-impervious_sqft")
    page = Paginator(qs, 50).get_page(request.GET.get("page"))
    gi = getattr(survey, "gis_import", None)
    return render(request, "gis/survey_detail.html", {"survey": survey, "page": page, "gi": gi,
                                                      "others": [s for s in surveys() if s.pk != survey.pk]})


@require_perm(Perm.GIS_VIEW)
def gis_survey_eru(request, survey_id: int):
    det = eru_determination(survey=survey_get(survey_id))
    chart = histogram_svg_bars(det.stats) if det.stats else None
    return render(request, "gis/eru.html", {"det": det, "chart": chart})


@require_perm(Perm.GIS_VIEW)
def gis_survey_export(request, survey_id: int, fmt: str):
    survey = survey_get(survey_id)
    stem = f"impervious-survey-{survey.pk}-{survey.surveyed_on}"
    if fmt == "csv":
        return download(survey_csv(survey), name=stem, ext="csv")
    # GDAL writes a GeoPackage to a path: a folder of its own in the data folder (room for a town's survey),
    # removed before answering (issue 27: every export left its folder behind).
    with tempfile.TemporaryDirectory(dir=settings.DATA_DIR if Path(settings.DATA_DIR).exists() else None) as d:
        path = Path(d) / f"{stem}.gpkg"
        survey_geopackage(survey, str(path))
        resp = HttpResponse(path.read_bytes(), content_type="application/geopackage+sqlite3")
    resp["Content-Disposition"] = f'attachment; filename="{path.name}"'
    return resp


@require_perm(Perm.GIS_VIEW)
def gis_changes(request):
    form = ChangeForm(request.GET or None)
    report = None
    if form.is_valid():
        report = survey_changes(survey_from=form.cleaned_data["survey_from"], survey_to=form.cleaned_data["survey_to"],
                                as_of=date.today())
    return render(request, "gis/changes.html", {"form": form, "report": report,
                                                "tile_url": map_tiles()[0]})
