"""Reads of parcels. ``parcel_get_for_user`` is the only way a view reaches a parcel."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.db.models import Q, QuerySet
from django.http import Http404

from stormwater.accounts.roles import Perm
from stormwater.rules.classes import Classification, ClassificationError, PropertyClass, classify

from .models import ImperviousSurvey, Parcel, ParcelImpervious


def parcels_for_user(*, user) -> QuerySet[Parcel]:
    qs = Parcel.objects.select_related("owner")
    if user.can(Perm.PARCEL_VIEW_ALL):
        return qs
    # A union of the two index paths (an OR across joins reads every parcel: issue 15).
    owned = Parcel.objects.filter(owner__user=user).order_by().values("pk")
    via_units = Parcel.objects.filter(association__units__owner__user=user).order_by().values("pk")
    return qs.filter(pk__in=owned.union(via_units))


def parcel_get_for_user(*, user, parcel_id: str) -> Parcel:
    try:
        return parcels_for_user(user=user).get(parcel_id=parcel_id)
    except Parcel.DoesNotExist:
        # The same answer for "no such parcel" and "not yours": no probing of other owners' ids.
        raise Http404("No such parcel.") from None


def parcel_search(*, user, q: str) -> QuerySet[Parcel]:
    qs = parcels_for_user(user=user)
    q = (q or "").strip()
    if q:
        qs = qs.filter(Q(parcel_id__icontains=q) | Q(address__icontains=q) | Q(owner__name__icontains=q))
    return qs


def parcel_classification(parcel: Parcel) -> Classification:
    """The parcel's class: the recorded manual override if any, else from assessor data.

    Raises ClassificationError where the data do not decide it (e.g. unknown dwelling units).
    """
    if parcel.class_override:
        return Classification(PropertyClass(parcel.class_override),
                              f"Set by staff: {parcel.class_override_reason}")
    return classify(land_use_code=parcel.land_use_code, dwelling_units=parcel.dwelling_units,
                    public_way=parcel.public_way, road_maintenance=parcel.road_maintenance)


def survey_in_force(as_of: date) -> ImperviousSurvey | None:
    return ImperviousSurvey.objects.filter(surveyed_on__lte=as_of).order_by("-surveyed_on", "-id").first()


def impervious_as_of(*, as_of: date, pk_range: tuple[int, int] | None = None) -> dict[int, Decimal]:
    """Parcel pk -> impervious ft² from the latest survey measuring it on or before ``as_of``.

    One query, set-based (bill runs over every parcel): rows ordered so the newest survey wins.
    ``pk_range`` (first, last): only the parcels with a primary key in it (a bill run's slice).
    """
    rows = ParcelImpervious.objects.filter(survey__surveyed_on__lte=as_of)
    if pk_range is not None:
        rows = rows.filter(parcel_id__gte=pk_range[0], parcel_id__lte=pk_range[1])
    rows = rows.order_by("survey__surveyed_on", "survey_id").values_list("parcel_id", "impervious_sqft")
    return {pid: sqft for pid, sqft in rows.iterator(chunk_size=5000)}


def parcel_impervious(parcel: Parcel, *, as_of: date) -> ParcelImpervious | None:
    return (ParcelImpervious.objects.filter(parcel=parcel, survey__surveyed_on__lte=as_of)
            .select_related("survey").order_by("-survey__surveyed_on", "-survey_id").first())
