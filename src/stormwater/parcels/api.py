from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.core.exceptions import PermissionDenied
from django.http import JsonResponse
from django.views.decorators.http import require_http_methods

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.web.jsonapi import BadInput, api_errors, date_field, json_object

from .fees import fee_provider
from .selectors import association_history, association_of, parcel_get_for_user, parcel_impervious, parcel_search
from .services import association_check, association_record

_errors = api_errors()


def parcel_json(parcel, *, with_fee: bool = False) -> dict:
    out = {"parcel_id": parcel.parcel_id, "address": parcel.address,
           "owner": parcel.owner.name if parcel.owner else None, "land_use_code": parcel.land_use_code,
           "dwelling_units": parcel.dwelling_units,
           "lot_sqft": str(parcel.lot_sqft) if parcel.lot_sqft is not None else None,
           "class_override": parcel.class_override or None}
    if with_fee:
        today = date.today()
        pf = fee_provider().parcel_fee(parcel, as_of=today)  # the utility's fee path (parcels.fees)
        area = parcel_impervious(parcel, as_of=today)
        out["impervious"] = ({"sqft": str(area.impervious_sqft), "by_layer": area.by_layer,
                              "survey": area.survey.name, "surveyed_on": str(area.survey.surveyed_on)}
                             if area else None)
        out["classification_reason"] = pf.class_reason
        out["fee"] = pf.fee.as_json() if pf.fee else None
        out["problem"] = pf.problem
        out["resolution"] = str(pf.resolution) if pf.resolution else None
        # A unit parcel billed through its master (Ch. 295 Art. IV ¶G): ``fee`` is its share; this says of what.
        out["association_share"] = pf.share.as_json() if pf.share else None
    return out


@require_perm(api=True)
def api_parcel_list(request):
    qs = parcel_search(user=request.user, q=request.GET.get("q", ""))[:200]
    return JsonResponse({"parcels": [parcel_json(p) for p in qs]})


@require_perm(api=True)
def api_parcel_detail(request, parcel_id: str):
    parcel = parcel_get_for_user(user=request.user, parcel_id=parcel_id)
    return JsonResponse(parcel_json(parcel, with_fee=True))




# --- property association's instruments (Ch. 295 Art. IV ¶G; issue 17) -------------------------------------

def instrument_json(inst, *, in_force_pk: int | None = None) -> dict:
    return {"id": inst.pk, "reference": inst.reference, "recorded_on": inst.recorded_on.isoformat(),
            "effective_on": inst.effective_on.isoformat(), "note": inst.note, "in_force": inst.pk == in_force_pk,
            "created_at": inst.created_at.isoformat(),
            "created_by": inst.created_by.username if inst.created_by else None,
            "shares": [{"unit": s.unit.unit, "unit_parcel_id": s.unit.parcel.parcel_id if s.unit.parcel else None,
                        "owner": s.unit.owner.name if s.unit.owner else None, "share_percent": str(s.percent)}
                       for s in inst.shares.all()],
            "total_percent": str(sum((s.percent for s in inst.shares.all()), Decimal(0)))}


def association_json(parcel, *, on: date) -> dict:
    """The association on a master parcel: its instrument in force on ``on`` and every instrument on file."""
    assoc = association_of(parcel)
    if assoc is None:
        return {"parcel_id": parcel.parcel_id, "association": None, "as_of": on.isoformat(), "in_force": None,
                "instruments": []}
    history = association_history(assoc)
    current = next((i for i in sorted(history, key=lambda i: (i.effective_on, i.pk), reverse=True)
                    if i.effective_on <= on), None)
    cur_pk = current.pk if current else None
    return {"parcel_id": parcel.parcel_id, "association": {"name": assoc.name}, "as_of": on.isoformat(),
            "in_force": instrument_json(current, in_force_pk=cur_pk) if current else None,
            "instruments": [instrument_json(i, in_force_pk=cur_pk) for i in history]}


MAX_SHARES = 5000  # units of one association: the largest condominiums have hundreds


def _shares_from_body(body: dict) -> list[dict]:
    shares = body.get("shares")
    if not isinstance(shares, list):
        raise BadInput("shares: required, a list of {unit_parcel_id, share_percent}")
    if len(shares) > MAX_SHARES:
        raise BadInput(f"shares: at most {MAX_SHARES} units")
    out = []
    for i, s in enumerate(shares):
        if not isinstance(s, dict):
            raise BadInput(f"shares[{i}]: expected an object {{unit_parcel_id, share_percent}}")
        for k in ("unit_parcel_id", "share_percent"):
            if not isinstance(s.get(k), (str, int, float)) or isinstance(s.get(k), bool):
                raise BadInput(f"shares[{i}].{k}: required, a {'string' if k == 'unit_parcel_id' else 'number'}")
        out.append({"row": i + 1, "unit_parcel_id": str(s["unit_parcel_id"])[:100],
                    "share_percent": str(s["share_percent"])[:40]})
    return out


def _text(body: dict, name: str, limit: int) -> str:
    raw = body.get(name, "")
    if raw is None:
        return ""
    if not isinstance(raw, str):
        raise BadInput(f"{name}: expected text")
    if len(raw) > limit:
        raise BadInput(f"{name}: at most {limit} characters")
    return raw


@require_http_methods(["GET", "POST"])
@require_perm(api=True)
@_errors
def api_parcel_association(request, parcel_id: str):
    """GET: the association on the parcel, its instrument in force (``?on=YYYY-MM-DD``, default today) and every
    instrument on file — whoever may see the parcel (an owner of the parcel or a unit: read only).
    POST (parcel editors): record a new instrument {name?, reference, recorded_on, effective_on?, note?,
    shares: [{unit_parcel_id, share_percent}]}; ``?dry_run=1`` checks only and answers what would be recorded.
    Refusals: 400 with ``problems`` [{row, field, message}] (row: the 1-based index in ``shares``)."""
    parcel = parcel_get_for_user(user=request.user, parcel_id=parcel_id)
    if request.method == "GET":
        return JsonResponse(association_json(parcel, on=date_field(request.GET, "on", date.today())))
    if not request.user.can(Perm.PARCEL_EDIT):
        raise PermissionDenied(f"your role may not do this ({Perm.PARCEL_EDIT})")
    body = json_object(request)
    dry = request.GET.get("dry_run", "")
    if dry not in ("", "0", "1", "true", "false"):
        raise BadInput("dry_run: 1 or 0")
    args = {"parcel": parcel, "reference": _text(body, "reference", 200), "name": _text(body, "name", 200),
            "note": _text(body, "note", 2000), "recorded_on": date_field(body, "recorded_on", None),
            "effective_on": date_field(body, "effective_on", None), "shares": _shares_from_body(body)}
    if dry in ("1", "true"):
        return JsonResponse({"dry_run": True, **association_check(**args).as_json()})
    inst, created = association_record(acting_user=request.user, **args)
    out = association_json(parcel, on=date.today())
    return JsonResponse({"recorded": created, "instrument": instrument_json(inst), **out},
                        status=201 if created else 200)
