"""What the public may read about a parcel, and an owner's own overview.

Public: the parcel id, address, land use, class and its reason, lot size, impervious area and its survey,
the map, ERUs, the fee and its explanation, and the credits in force (type, percent, dates). These are the
facts the fee is computed from, like the Assessors' public database. NOT public: the owner's name and
mailing address, bills, accounts, balances, payments and cases: those need a sign-in and reach only one's
own records through the other apps' access functions.
"""
from __future__ import annotations

from datetime import date

from django.db.models import Q, QuerySet
from django.http import Http404

from stormwater.parcels.models import Parcel

PUBLIC_SEARCH_LIMIT = 25


def public_parcel_search(*, q: str) -> QuerySet[Parcel]:
    """Parcels by address or parcel id (never by owner name: that would reveal who owns what)."""
    q = (q or "").strip()
    if len(q) < 2:
        return Parcel.objects.none()
    return (Parcel.objects.filter(Q(parcel_id__icontains=q) | Q(address__icontains=q))
            .order_by("address", "parcel_id").only("parcel_id", "address", "land_use_code")[:PUBLIC_SEARCH_LIMIT])


def public_parcel_get(*, parcel_id: str) -> Parcel:
    p = Parcel.objects.filter(parcel_id=parcel_id).first()
    if p is None:
        raise Http404("No such parcel.")
    return p


def public_credits(*, parcel: Parcel, on: date) -> list:
    """Credits in force on the parcel (relief app): what reduces its fee, without the applicant."""
    try:
        from stormwater.relief.selectors import grants_in_force
    except ImportError:  # relief not installed: no credits
        return []
    return list(grants_in_force(on=on, parcel_pks=[parcel.pk]).select_related("credit_type"))


def owner_overview(*, user, today: date) -> dict:
    """A signed-in owner's parcels, accounts with their position, bills, relief cases and permit files,
    each read through the owning app's access function (nothing else can be reached)."""
    from stormwater.parcels.selectors import parcels_for_user
    from stormwater.permits.selectors import permits_for_user
    from stormwater.receivables.access import accounts_for_user
    from stormwater.receivables.ledger import account_position
    from stormwater.relief.selectors import relief_cases_for_user
    from stormwater.utility.selectors import bills_for_user

    from stormwater.cases.selectors import case_clocks

    accounts = [(a, account_position(a, as_of=today)) for a in accounts_for_user(user=user)[:50]]
    return {
        "parcels": list(parcels_for_user(user=user)[:50]),
        "accounts": accounts,
        "bills": list(bills_for_user(user=user).order_by("-period_start", "number")[:20]),
        # each case with its running clocks (what is due, by when): the deadlines the owner follows
        "cases": [(c, case_clocks(c, today=today, running_only=True))
                  for c in relief_cases_for_user(user).order_by("-id")[:20]],
        "permits": [(p, case_clocks(p.case, today=today, running_only=True))
                    for p in permits_for_user(user).order_by("-id")[:20]],
    }
