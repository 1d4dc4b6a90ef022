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
from stormwater.rules.money import ZERO

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


OVERVIEW_ACCOUNTS, OVERVIEW_ROWS = 50, 20


def _running_clocks(cases, *, today: date) -> dict[int, list]:
    """case id → its running clocks with their due dates, for many cases in three queries (not three a case)."""
    from stormwater.cases.models import Clock
    from stormwater.cases.selectors import clock_view

    out: dict[int, list] = {c.pk: [] for c in cases}
    for clock in (Clock.objects.filter(case_id__in=list(out), met_on__isnull=True)
                  .prefetch_related("tolls", "extensions").order_by("case_id", "start", "id")):
        out[clock.case_id].append(clock_view(clock, today=today))
    return out


def owner_overview(*, user, today: date) -> dict:
    """A signed-in owner's parcels, accounts with their balance today, bills, relief cases and permit files,
    each read through the owning app's access function (nothing else can be reached).

    A constant number of queries however many properties the owner has (issue 15): the balances come from
    the set-based positions (``receivables.positions``, the same figures as each account's statement) and
    the cases' clocks in one batch."""
    from stormwater.parcels.selectors import parcels_for_user
    from stormwater.permits.selectors import permits_for_user
    from stormwater.receivables.access import accounts_for_user
    from stormwater.receivables.positions import AccountFilter, AccountReport
    from stormwater.relief.selectors import relief_cases_for_user
    from stormwater.utility.selectors import bills_for_user

    accounts = list(accounts_for_user(user=user)[:OVERVIEW_ACCOUNTS])
    figures = {f.account_id: f for f in AccountReport("all", as_of=today,
                                                      accounts=AccountFilter(ids=[a.pk for a in accounts]))}
    cases = list(relief_cases_for_user(user).order_by("-id")[:OVERVIEW_ROWS])
    permits = list(permits_for_user(user).order_by("-id")[:OVERVIEW_ROWS])
    clocks = _running_clocks(cases + [p.case for p in permits], today=today)
    return {
        "parcels": list(parcels_for_user(user=user)[:OVERVIEW_ACCOUNTS]),
        # an account with nothing posted yet owes nothing
        "accounts": [(a, figures.get(a.pk) or _NOTHING) for a in accounts],
        "bills": list(bills_for_user(user=user).order_by("-period_start", "number")[:OVERVIEW_ROWS]),
        # each case with its running clocks (what is due, by when): the deadlines the owner follows
        "cases": [(c, clocks[c.pk]) for c in cases],
        "permits": [(p, clocks[p.case.pk]) for p in permits],
    }


class _Nothing:
    total = principal = interest = demand = credit = ZERO


_NOTHING = _Nothing()
