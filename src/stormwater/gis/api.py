"""JSON API of the GIS app: map GeoJSON (access through parcel_get_for_user), ERU, change reports."""
from __future__ import annotations

from datetime import date

from django.http import JsonResponse

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.parcels.selectors import parcel_get_for_user

from .selectors import changes_geojson, eru_determination, parcel_geojson, survey_changes, survey_get


@require_perm(api=True)
def api_parcel_geojson(request, parcel_id: str):
    """The parcel and its impervious pieces by layer (WGS84). An owner reaches only their own parcels."""
    parcel = parcel_get_for_user(user=request.user, parcel_id=parcel_id)
    survey = survey_get(int(request.GET["survey"])) if request.GET.get("survey", "").isdigit() else None
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
