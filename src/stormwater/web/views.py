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
