from datetime import date

from django.shortcuts import render
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from stormwater.accounts.access import require_perm
from stormwater.roles import Perm, Role
from stormwater.parcels.selectors import parcels_for_user
from stormwater.utility.models import BillRun
from stormwater.utility.selectors import bills_for_user, resolution_in_force

HOME_QUEUE_LIMIT = 25   # the home shows the first items; /work-queue/ shows every one (nothing cut silently)
# The inspector's day list and map (issue 18, fieldphone slice) is linked from the inspector's home under this
# URL name once it exists.
INSPECTOR_DAY_URL = "inspector_day"


def _inspector_day_url() -> str | None:
    try:
        return reverse(INSPECTOR_DAY_URL)
    except NoReverseMatch:
        return None


def _owner_accounts(user, today: date):
    """The owner's accounts with what each owes today, "Due now" (``receivables.owed``: the one figure, interest to
    the day included, as the account page and the cashier's window say it), in one query."""
    from stormwater.receivables.access import accounts_for_user
    from stormwater.receivables.owed import DueNow

    return list(accounts_for_user(user=user).annotate(balance=DueNow(as_of=today)).order_by("number")[:50])


@require_perm()
def home(request):
    """A home for each role (issue 16): the person's work queue from every app — due first, overdue flagged —
    with counts and the small charts their role would rather look at; the inspector's is today's inspections,
    the owner's their bills, balances and their cases' next dates."""
    from stormwater.workqueue.selectors import home_for, inspections_this_week

    user = request.user
    today = timezone.localdate()
    h = home_for(user=user, today=today)
    items = h.queue.items
    staff = user.is_staff_role
    ctx = {"home": h, "today": today, "staff": staff, "total": len(items),
           "more": max(len(items) - HOME_QUEUE_LIMIT, 0),
           "resolution": resolution_in_force(today) if user.can(Perm.RATES_VIEW) else None,
           "runs": BillRun.objects.all()[:5] if user.can(Perm.BILLING_VIEW_ALL) else [],
           "can_search": user.can(Perm.PARCEL_VIEW_ALL)}
    if staff:
        ctx["rows"] = h.queue.rows(items[:HOME_QUEUE_LIMIT])
    else:
        # An owner, applicant or engineer: what is theirs to do, and the Town's next dates on their files.
        mine = [i for i in items if i.party != "town"]
        ctx["rows"] = h.queue.rows(mine[:HOME_QUEUE_LIMIT])
        ctx["town_rows"] = h.queue.rows([i for i in items if i.party == "town"][:HOME_QUEUE_LIMIT])
        ctx["my_parcels"] = list(parcels_for_user(user=user)[:50])
        ctx["my_bills"] = list(bills_for_user(user=user).order_by("-period_start", "number")[:10])
        ctx["my_accounts"] = _owner_accounts(user, today)
    if user.role == Role.INSPECTOR or (user.can(Perm.INSPECT) and not user.can(Perm.CONSTRUCTION_MANAGE)):
        week = inspections_this_week(h.queue)
        ctx["inspector"] = True
        ctx["today_rows"] = h.queue.rows([i for i in week if i.due <= today])
        ctx["week_later"] = len([i for i in week if i.due > today])
        ctx["day_url"] = _inspector_day_url()
    return render(request, "web/home.html", ctx)


@require_perm()
def case_numbers(request):
    """What each case-number prefix means (issue 16): the legend of cases.numbers, and the renumbered prefixes."""
    from stormwater.cases.numbers import RENUMBERED, legend

    return render(request, "web/case_numbers.html", {"legend": legend(), "renumbered": RENUMBERED})


@require_perm(Perm.PARCEL_VIEW_ALL)
def town_map(request):
    """The town map (issue 16): parcels, permits, construction files, O&M sites and BMPs; a search that works
    without JavaScript (the list of matches) and, with it, also finds the match on the map."""
    from stormwater.pages.townmap import KIND_LABELS, town_search

    q = request.GET.get("q", "").strip()
    hits = town_search(user=request.user, q=q)
    return render(request, "web/town_map.html", {"q": q, "hits": hits, "kinds": KIND_LABELS})


@require_perm(Perm.PARCEL_VIEW_ALL)
def town_map_features(request):
    """The town map's data: GeoJSON (WGS 84) of what the person may open (pages.townmap.town_features)."""
    from django.http import JsonResponse

    from stormwater.pages.townmap import town_features

    return JsonResponse(town_features(user=request.user))


@require_perm(Perm.USERS_MANAGE)
def town_settings(request):
    """The Director's settings page (issue 30): what the installation's town.toml sets for the inspector's phone
    (where the day's route starts, the base under the field maps), read only, with how to change each — the
    configuration hints that used to be on the inspector's screens."""
    from stormwater.townconfig import config_path, map_tiles, town_config

    cfg = town_config()
    url, attribution = map_tiles()
    return render(request, "web/settings.html", {
        "cfg": cfg, "start": cfg.field_start, "tile_url": url, "attribution": attribution,
        "own_tiles": bool(cfg.map_tile_url.strip()) and cfg.map_tile_url.strip() != "none",
        "path": config_path()})
