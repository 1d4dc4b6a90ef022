"""State changes of parcels: each atomic, each with an audit row."""
from __future__ import annotations

from decimal import Decimal

from django.db import transaction

from stormwater.audit.services import audit_record
from stormwater.rules.classes import PropertyClass

from .models import HUNDRED, AssociationUnit, Owner, Parcel, PropertyAssociation

ERR_REASON_REQUIRED = "A reason is required for a manual class override."
ERR_SHARES_TOTAL = "Unit percentages must total exactly 100 % (they total {total} %)."
ERR_SHARES_EMPTY = "An association needs at least one unit."


@transaction.atomic
def parcel_set_class_override(*, parcel: Parcel, property_class: str, reason: str, acting_user) -> Parcel:
    """Record a manual class (or clear it with property_class=""), with why (Ch. 295 Art. IV definitions)."""
    parcel = Parcel.objects.select_for_update().get(pk=parcel.pk)
    if property_class:
        PropertyClass(property_class)  # ValueError on an unknown class
        if not (reason or "").strip():
            raise ValueError(ERR_REASON_REQUIRED)
    old = parcel.class_override
    parcel.class_override = property_class
    parcel.class_override_reason = reason.strip() if property_class else ""
    parcel.save(update_fields=["class_override", "class_override_reason"])
    audit_record(actor=acting_user, action="parcel.class_override", obj=parcel, why=reason,
                 data={"old": old, "new": property_class})
    return parcel


def validate_shares(percents: list[Decimal]) -> None:
    if not percents:
        raise ValueError(ERR_SHARES_EMPTY)
    if any(p <= 0 for p in percents):
        raise ValueError("Each unit's percentage must be greater than zero.")
    total = sum(percents, Decimal(0))
    if total != HUNDRED:
        raise ValueError(ERR_SHARES_TOTAL.format(total=total))


@transaction.atomic
def association_record(*, parcel: Parcel, name: str, instrument: str, recorded_on, units: list[dict],
                       acting_user) -> PropertyAssociation:
    """Record a property association's instrument and unit percentages (Ch. 295 Art. IV ¶G).

    ``units``: [{"unit": "1A", "percent": Decimal, "owner": Owner|None}]. Percentages must total 100.
    Replaces the unit table of an association already on file (the new instrument governs).
    """
    validate_shares([Decimal(u["percent"]) for u in units])
    if not (instrument or "").strip():
        raise ValueError("The recorded instrument (book/page or document number) is required.")
    assoc, created = PropertyAssociation.objects.select_for_update().get_or_create(
        parcel=parcel, defaults={"name": name, "instrument": instrument, "recorded_on": recorded_on})
    if not created:
        assoc.name, assoc.instrument, assoc.recorded_on = name, instrument, recorded_on
        assoc.save()
        assoc.units.all().delete()
    AssociationUnit.objects.bulk_create(
        AssociationUnit(association=assoc, unit=u["unit"], percent=Decimal(u["percent"]), owner=u.get("owner"))
        for u in units
    )
    audit_record(actor=acting_user, action="association.record", obj=assoc, why=f"Instrument {instrument}",
                 data={"units": [{"unit": u["unit"], "percent": str(u["percent"])} for u in units]})
    return assoc


@transaction.atomic
def owner_create(*, name: str, mailing_address: str, email: str = "", acting_user) -> Owner:
    owner = Owner.objects.create(name=name, mailing_address=mailing_address, email=email)
    audit_record(actor=acting_user, action="owner.create", obj=owner)
    return owner


ERR_PAPERLESS_EMAIL = "email: bills by e-mail only need an e-mail address"


@transaction.atomic
def owner_paperless_set(*, owner: Owner, paperless: bool, email: str | None = None, acting_user) -> Owner:
    """The owner's choice of bills by e-mail only (issue 17 "Paperless bills: an owner can choose e-mail only"), made
    by the owner on the portal or by the office for them. ``email`` (when given) becomes the owner's address; e-mail
    only needs one. The print file for mailing leaves a paperless owner's bills out; the e-mail job sends them."""
    from django.core.exceptions import ValidationError
    from django.core.validators import validate_email

    owner = Owner.objects.select_for_update().get(pk=owner.pk)
    old = {"paperless": owner.paperless, "email": owner.email}
    if email is not None and email.strip() != owner.email:
        email = email.strip()
        if email:
            try:
                validate_email(email)
            except ValidationError:
                raise ValueError(f"email: {email!r} is not an e-mail address") from None
        elif paperless:
            raise ValueError(ERR_PAPERLESS_EMAIL)
        owner.email = email
    if paperless and not owner.email:
        raise ValueError(ERR_PAPERLESS_EMAIL)
    owner.paperless = bool(paperless)
    owner.save(update_fields=["paperless", "email"])
    audit_record(actor=acting_user, action="owner.paperless", obj=owner,
                 data={"old": old, "new": {"paperless": owner.paperless, "email": owner.email}})
    return owner
