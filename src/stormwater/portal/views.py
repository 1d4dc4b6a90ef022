"""The public portal (issue 9): a thin public side over the other apps' selectors and services.

Public (no sign-in): the portal page, parcel lookup, a parcel's fee facts and map, sign-up. Everything an
owner or applicant owns (bills, accounts, relief cases, permit files) stays behind the other apps' views
and their access functions; the portal links to them.
"""
from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.db import transaction
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from stormwater.accounts.access import public, require_perm
from stormwater.accounts.signin import auth_login_record
from stormwater.accounts.roles import Perm
from stormwater.parcels.selectors import parcel_impervious
from stormwater.utility.selectors import parcel_fee

from . import throttle
from .forms import PaperlessForm, ParcelLookupForm, SignupForm
from .selectors import owner_overview, public_credits, public_parcel_get, public_parcel_search
from .services import SignupError, owner_signup

MSG_SIGNUP_THROTTLED = ("Too many attempts with this account number. Please wait {minutes} minutes, "
                        "or call the Stormwater Division.")


@public
def portal_home(request):
    ctx = {"form": ParcelLookupForm(), "overview": None}
    user = request.user
    if user.is_authenticated and not user.can(Perm.PARCEL_VIEW_ALL):
        ctx["overview"] = owner_overview(user=user, today=timezone.localdate())
        owners = list(user.owner_records.order_by("pk"))
        if owners:  # issue 17 "Paperless bills": the owner chooses e-mail only here
            ctx["paperless_form"] = PaperlessForm(initial={"paperless": all(o.paperless for o in owners),
                                                           "email": owners[0].email or user.email})
            ctx["paperless"] = all(o.paperless and o.email for o in owners)
    ctx["can_relief"] = user.is_authenticated and user.can(Perm.RELIEF_APPLY)
    ctx["can_permit"] = user.is_authenticated and user.can(Perm.PERMIT_APPLY)
    return render(request, "portal/home.html", ctx)


@public
def portal_parcel_search(request):
    form = ParcelLookupForm(request.GET or None)
    results = public_parcel_search(q=form.cleaned_data["q"]) if form.is_valid() else None
    return render(request, "portal/parcel_search.html", {"form": form, "results": results})


@public
def portal_parcel(request, parcel_id: str):
    from stormwater.townconfig import town_config
    from stormwater.utility.models import Account

    parcel = public_parcel_get(parcel_id=parcel_id)
    today = timezone.localdate()
    # Paying online (issue 17): the processor's page for each account of the parcel, without an amount (balances
    # are private: the processor's page asks for it, or the owner pays from the bill page signed in).
    cfg = town_config()
    pf = parcel_fee(parcel, as_of=today)
    # A unit parcel billed through its master (Ch. 295 Art. IV ¶G) is paid on its unit's account (kept on the master
    # parcel); a master's page lists its units' accounts.
    accounts = (Account.objects.filter(unit__parcel=parcel) if pf.share else Account.objects.filter(parcel=parcel))
    pay = [(a, cfg.payment_url(account=a.number, amount=None)) for a in
           accounts.select_related("unit").order_by("number")] if cfg.payment_url_template else []
    return render(request, "portal/parcel.html", {
        "parcel": parcel, "pf": pf, "area": parcel_impervious(parcel, as_of=today),
        "credits": public_credits(parcel=parcel, on=today), "today": today, "pay": pay})


@public
def portal_parcel_geojson(request, parcel_id: str):
    """The parcel polygon and impervious pieces (no owner): the same public facts as the page."""
    from stormwater.gis.selectors import parcel_geojson

    return JsonResponse(parcel_geojson(parcel=public_parcel_get(parcel_id=parcel_id)))


@public
@require_http_methods(["GET", "POST"])
def portal_signup(request):
    if request.user.is_authenticated:
        return redirect("portal_home")
    form = SignupForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        ip = throttle.client_ip(request)
        if throttle.throttled("signup", d["account_number"], ip):
            form.add_error(None, MSG_SIGNUP_THROTTLED.format(minutes=throttle.window_minutes()))
            status = 429
        else:
            try:
                user = owner_signup(account_number=d["account_number"], code=d["code"], username=d["username"],
                                    email=d["email"], password=d["password1"])
            except SignupError as e:
                if e.field == "code":
                    throttle.failure_note("signup", d["account_number"], ip)
                form.add_error(e.field if e.field in form.fields else None, str(e))
            else:
                throttle.failures_clear("signup", d["account_number"], ip)
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
                auth_login_record(user=user, request=request, method="sign-up")
                messages.success(request, "Your sign-in is linked to your property. Welcome.")
                return redirect("portal_home")
    return render(request, "portal/signup.html", {"form": form}, status=status)


@require_perm()
@require_http_methods(["POST"])
def portal_paperless(request):
    """The signed-in owner chooses bills by e-mail only, or paper again (issue 17 "Paperless bills"), for every owner
    record linked to the sign-in (parcels.services.owner_paperless_set)."""
    from stormwater.parcels.services import owner_paperless_set

    owners = list(request.user.owner_records.order_by("pk"))
    form = PaperlessForm(request.POST)
    if not owners:
        messages.error(request, "No property is linked to your sign-in: there are no bills to choose for.")
    elif not form.is_valid():
        messages.error(request, " ".join(e for errs in form.errors.values() for e in errs))
    else:
        try:
            with transaction.atomic():
                for o in owners:
                    owner_paperless_set(owner=o, paperless=form.cleaned_data["paperless"],
                                        email=form.cleaned_data["email"], acting_user=request.user)
        except ValueError as e:
            messages.error(request, str(e).removeprefix("email: ").capitalize() + ".")
        else:
            messages.success(request, "Your bills will be e-mailed to you only." if form.cleaned_data["paperless"]
                             else "Your bills will be printed and mailed (and e-mailed where an address is on file).")
    return redirect("portal_home")
