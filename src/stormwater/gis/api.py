"""JSON API of the GIS app: map GeoJSON (access through parcel_get_for_user), ERU, change reports, layer import."""
from __future__ import annotations

from datetime import date

from django.http import JsonResponse
from django.views.decorators.http import require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.parcels.selectors import parcel_get_for_user
from stormwater.web.jsonapi import BadInput, api_errors, date_field, int_field, text_field

from .layer_upload import LayerUpload, layers_upload_import

from .selectors import changes_geojson, eru_determination, parcel_geojson, survey_changes, survey_get


@require_perm(api=True)
@api_errors()
def api_parcel_geojson(request, parcel_id: str):
    """The parcel and its impervious pieces by layer (WGS84). An owner reaches only their own parcels."""
    parcel = parcel_get_for_user(user=request.user, parcel_id=parcel_id)
    survey = survey_get(int_field(request.GET, "survey", None, lo=1)) if request.GET.get("survey") else None
    return JsonResponse(parcel_geojson(parcel=parcel, survey=survey))


@require_perm(Perm.GIS_VIEW, api=True)
def api_survey_eru(request, survey_id: int):
    return JsonResponse(eru_determination(survey=survey_get(survey_id)).as_json())


@require_perm(Perm.GIS_VIEW, api=True)
def api_changes(request, from_id: int, to_id: int):
    report = survey_changes(survey_from=survey_get(from_id), survey_to=survey_get(to_id), as_of=date.today())
    return JsonResponse(report.as_json())


@require_perm(Perm.GIS_VIEW, api=True)
def api_changes_geojson(request, from_id: int, to_id: int):
    report = survey_changes(survey_from=survey_get(from_id), survey_to=survey_get(to_id), as_of=date.today())
    return JsonResponse(changes_geojson(report=report))


LAYER_FIELDS = ("parcels", "id_field", "impervious", "right_of_way", "row_where", "source_crs", "name", "surveyed_on")
MAX_LAYER_UPLOAD = 1024 * 1024 * 1024  # what one upload may hold; the zip limits (town configuration) apply inside


@require_POST
@require_perm(Perm.GIS_IMPORT, api=True)
@api_errors()
def api_layers_import(request):
    """GIS layers → an impervious survey (issue 20), the pipeline of the web's import in one request. Multipart:
    ``file`` (repeatable: GeoPackage, GeoJSON, zipped Shapefile or File Geodatabase), ``parcels`` and ``id_field``,
    ``impervious`` (repeatable) and ``right_of_way`` (repeatable) as ``FILE[:LAYER]``, ``row_where``
    (``FIELD=V1,V2``, repeatable), ``source_crs``, ``name``, ``surveyed_on``. A dry run unless ``?dry_run=0``:
    200 with the report (findings by layer and feature, what the survey does to the bill); applied → 201 with
    ``survey_id``; the same areas as a survey on record → 200 ``unchanged``. Anything wrong → 400 naming the file,
    the layer or feature and the field; nothing changed."""
    if request.content_type != "multipart/form-data":
        raise BadInput("file: send the layers as multipart/form-data (field \"file\")")
    dry = request.GET.get("dry_run", "1")
    if dry not in ("0", "1", "true", "false"):
        raise BadInput("dry_run: 1 (default: check only) or 0 (import)")
    post = request.POST
    unknown = sorted(set(post) - set(LAYER_FIELDS))
    if unknown:
        raise BadInput(f"unknown field{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}")
    files = request.FILES.getlist("file")
    if sum(f.size for f in files) > MAX_LAYER_UPLOAD:
        raise BadInput(f"file: over {MAX_LAYER_UPLOAD // 2**20:,} MB in all")
    impervious = [v.strip() for v in post.getlist("impervious") if v.strip()]
    if not impervious:
        raise BadInput("impervious: required (FILE[:LAYER] of at least one impervious layer)")
    row_where: dict[str, list[str]] = {}
    for v in post.getlist("row_where"):
        fld, sep, vals = v.partition("=")
        if not sep or not fld.strip():
            raise BadInput(f"row_where: {v!r}: use FIELD=VALUE[,VALUE]")
        row_where.setdefault(fld.strip(), []).extend(x.strip() for x in vals.split(",") if x.strip())
    choice = LayerUpload(
        parcels=text_field(post, "parcels", required=True, max_length=300).strip(),
        id_field=text_field(post, "id_field", required=True, max_length=100).strip(),
        impervious=impervious, right_of_way=[v.strip() for v in post.getlist("right_of_way") if v.strip()],
        row_where=row_where, source_crs=text_field(post, "source_crs", max_length=40).strip() or None,
        name=text_field(post, "name", max_length=200).strip(), surveyed_on=date_field(post, "surveyed_on", None))
    out = layers_upload_import(files=files, choice=choice, acting_user=request.user, dry_run=dry in ("1", "true"))
    report = out.report
    applied = not report.get("dry_run") and not report.get("unchanged")
    return JsonResponse(report, status=201 if applied else 200)
