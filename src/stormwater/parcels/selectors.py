"""Reads of parcels. ``parcel_get_for_user`` is the only way a view reaches a parcel."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.db.models import Q, QuerySet
from django.http import Http404

from stormwater.accounts.roles import Perm
from stormwater.rules.classes import Classification, ClassificationError, PropertyClass, classify

from .models import (AssociationInstrument, ImperviousSurvey, InstrumentShare, Parcel, ParcelImpervious,
                     PropertyAssociation)


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


# --- property associations (Ch. 295 Art. IV ¶G) --------------------------------------------------------------

def _in_force_ids(*, on: date, master_pks: list[int] | None = None,
                  pk_range: tuple[int, int] | None = None) -> dict[int, int]:
    """Master parcel pk → the pk of its association's instrument in force on ``on``: the latest ``effective_on`` on
    or before that day, the later recording on a tie. One query; associations are few (a town has dozens)."""
    rows = AssociationInstrument.objects.filter(effective_on__lte=on)
    if master_pks is not None:
        rows = rows.filter(association__parcel_id__in=master_pks)
    if pk_range is not None:
        rows = rows.filter(association__parcel_id__gte=pk_range[0], association__parcel_id__lte=pk_range[1])
    out: dict[int, int] = {}
    for master, pk in rows.order_by("effective_on", "id").values_list("association__parcel_id", "pk"):
        out[master] = pk  # ordered: the last one in force wins
    return out


def instrument_in_force(association: PropertyAssociation, *, on: date) -> AssociationInstrument | None:
    """The association's instrument that divides the fee of a bill made on ``on`` (Ch. 295 Art. IV ¶G)."""
    return (association.instruments.filter(effective_on__lte=on).order_by("-effective_on", "-id")
            .prefetch_related("shares__unit__owner", "shares__unit__parcel").first())


def shares_in_force(*, on: date, pk_range: tuple[int, int] | None = None) -> dict[int, list[InstrumentShare]]:
    """Master parcel pk → the unit shares of its instrument in force on ``on`` (each with ``unit``, its ``owner``
    and ``instrument``, ``association``), ordered by unit. Two queries, whatever the number of associations: the
    bill run's read (``utility.billrun.prepare``)."""
    ids = _in_force_ids(on=on, pk_range=pk_range)
    out: dict[int, list[InstrumentShare]] = {}
    if not ids:
        return out
    for sh in (InstrumentShare.objects.filter(instrument_id__in=ids.values())
               .select_related("unit__owner", "instrument__association").order_by("instrument_id", "unit__unit")):
        out.setdefault(sh.instrument.association.parcel_id, []).append(sh)
    return out


def unit_parcels_in_force(*, on: date) -> set[int]:
    """Pks of the parcels that are units under an instrument in force on ``on``: each is billed through its
    association's master parcel for its share (Ch. 295 Art. IV ¶G), never on its own as well."""
    ids = _in_force_ids(on=on)
    return set(InstrumentShare.objects.filter(instrument_id__in=ids.values(), unit__parcel__isnull=False)
               .values_list("unit__parcel_id", flat=True))


def association_of(parcel: Parcel) -> PropertyAssociation | None:
    return PropertyAssociation.objects.filter(parcel=parcel).first()


def association_history(association: PropertyAssociation) -> list[AssociationInstrument]:
    """Every instrument on file, newest effective first, each with its shares (the page's and API's history)."""
    return list(association.instruments.order_by("-effective_on", "-id").select_related("created_by")
                .prefetch_related("shares__unit__owner", "shares__unit__parcel"))
