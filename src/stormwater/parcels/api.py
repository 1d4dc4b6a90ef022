from __future__ import annotations

from datetime import date

from django.http import JsonResponse

from stormwater.accounts.access import require_perm

from .selectors import parcel_get_for_user, parcel_impervious, parcel_search


def parcel_json(parcel, *, with_fee: bool = False) -> dict:
    out = {"parcel_id": parcel.parcel_id, "address": parcel.address,
           "owner": parcel.owner.name if parcel.owner else None, "land_use_code": parcel.land_use_code,
           "dwelling_units": parcel.dwelling_units,
           "lot_sqft": str(parcel.lot_sqft) if parcel.lot_sqft is not None else None,
           "class_override": parcel.class_override or None}
    if with_fee:
        from stormwater.utility.selectors import parcel_fee

        today = date.today()
        pf = parcel_fee(parcel, as_of=today)
        area = parcel_impervious(parcel, as_of=today)
        out["impervious"] = ({"sqft": str(area.impervious_sqft), "by_layer": area.by_layer,
                              "survey": area.survey.name, "surveyed_on": str(area.survey.surveyed_on)}
                             if area else None)
        out["classification_reason"] = pf.class_reason
        out["fee"] = pf.fee.as_json() if pf.fee else None
        out["problem"] = pf.problem
        out["resolution"] = str(pf.resolution) if pf.resolution else None
    return out


@require_perm(api=True)
def api_parcel_list(request):
    qs = parcel_search(user=request.user, q=request.GET.get("q", ""))[:200]
    return JsonResponse({"parcels": [parcel_json(p) for p in qs]})


@require_perm(api=True)
def api_parcel_detail(request, parcel_id: str):
    parcel = parcel_get_for_user(user=request.user, parcel_id=parcel_id)
    return JsonResponse(parcel_json(parcel, with_fee=True))


