from datetime import date

from django.shortcuts import render

from stormwater.accounts.access import public, require_perm
from stormwater.accounts.roles import Perm
from stormwater.parcels.selectors import parcels_for_user
from stormwater.utility.models import BillRun
from stormwater.utility.selectors import bills_for_user, resolution_in_force


@require_perm()
def home(request):
    user = request.user
    ctx = {"resolution": resolution_in_force(date.today()) if user.can(Perm.RATES_VIEW) else None,
           "runs": BillRun.objects.all()[:5] if user.can(Perm.BILLING_VIEW_ALL) else [],
           "my_parcels": None if user.can(Perm.PARCEL_VIEW_ALL) else parcels_for_user(user=user),
           "my_bills": None if user.can(Perm.BILLING_VIEW_ALL) else bills_for_user(user=user)[:10]}
    return render(request, "web/home.html", ctx)


@public
def healthz(request):
    from django.http import JsonResponse

    return JsonResponse({"ok": True})


@require_perm()
def case_numbers(request):
    """What each case-number prefix means (issue 16): the legend of cases.numbers, and the renumbered prefixes."""
    from stormwater.cases.numbers import RENUMBERED, legend

    return render(request, "web/case_numbers.html", {"legend": legend(), "renumbered": RENUMBERED})


@require_perm(Perm.PARCEL_VIEW_ALL)
def town_map(request):
    """The town map (issue 16): parcels, permits, construction files, O&M sites and BMPs; a search that works
    without JavaScript (the list of matches) and, with it, also finds the match on the map."""
    from stormwater.web.townmap import KIND_LABELS, town_search

    q = request.GET.get("q", "").strip()
    hits = town_search(user=request.user, q=q)
    return render(request, "web/town_map.html", {"q": q, "hits": hits, "kinds": KIND_LABELS})


@require_perm(Perm.PARCEL_VIEW_ALL)
def town_map_features(request):
    """The town map's data: GeoJSON (WGS 84) of what the person may open (web.townmap.town_features)."""
    from django.http import JsonResponse

    from stormwater.web.townmap import town_features

    return JsonResponse(town_features(user=request.user))
