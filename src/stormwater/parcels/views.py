from __future__ import annotations

from datetime import date

from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.audit.selectors import audit_for_object
from stormwater.utility.selectors import account_balance, bills_for_user, parcel_fee

from .forms import ClassOverrideForm
from .lists import ParcelList
from .selectors import parcel_get_for_user, parcel_impervious, parcels_for_user
from .services import parcel_set_class_override


@require_perm()
def parcel_list(request):
    """Every parcel the user may see (``parcels_for_user``) on the one list mechanism: ``?q=`` searches address,
    parcel id and owner as before; class, land use, owner, impervious area and balance filter; ``export=csv|xlsx``."""
    lst = ParcelList(request, parcels_for_user(user=request.user))
    return lst.export_response() or render(request, "parcels/list.html", {"lst": lst})


@require_perm()
def parcel_detail(request, parcel_id: str):
    parcel = parcel_get_for_user(user=request.user, parcel_id=parcel_id)
    today = date.today()
    pf = parcel_fee(parcel, as_of=today)
    bills = bills_for_user(user=request.user).filter(parcel=parcel).prefetch_related("installments")
    accounts = [(a, account_balance(a, as_of=today)) for a in parcel.accounts.select_related("unit")]
    if not request.user.can(Perm.BILLING_VIEW_ALL):
        own = {b.account_id for b in bills}
        accounts = [(a, bal) for a, bal in accounts if a.pk in own]
    ctx = {
        "parcel": parcel, "pf": pf, "area": parcel_impervious(parcel, as_of=today), "bills": bills,
        "accounts": accounts, "today": today,
        "units": parcel.association.units.select_related("owner") if hasattr(parcel, "association") else [],
        "can_classify": request.user.can(Perm.PARCEL_CLASSIFY),
        "override_form": ClassOverrideForm(initial={"property_class": parcel.class_override}),
        "audit": audit_for_object(parcel)[:20] if request.user.can(Perm.AUDIT_VIEW) else [],
    }
    # Everything tied to the parcel (issue 16): surveys, credits, abatements, permits, construction, O&M sites.
    from stormwater.web.parcel_record import parcel_record

    ctx.update(parcel_record(parcel=parcel, user=request.user, today=today))
    return render(request, "parcels/detail.html", ctx)


@require_POST
@require_perm(Perm.PARCEL_CLASSIFY)
def parcel_class_override(request, parcel_id: str):
    parcel = parcel_get_for_user(user=request.user, parcel_id=parcel_id)
    form = ClassOverrideForm(request.POST)
    if form.is_valid():
        try:
            parcel_set_class_override(parcel=parcel, property_class=form.cleaned_data["property_class"],
                                      reason=form.cleaned_data["reason"], acting_user=request.user)
            messages.success(request, "Class recorded.")
        except ValueError as e:
            messages.error(request, str(e))
    return redirect("parcel_detail", parcel_id=parcel.parcel_id)
