"""State changes of parcels: each atomic, each with an audit row."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation

from django.db import transaction
from django.utils import timezone

from stormwater.audit.services import actor_or_none, audit_record
from stormwater.formats import day
from stormwater.rules.classes import PropertyClass
from stormwater.web.forms import FieldRefusal

from .models import HUNDRED, AssociationInstrument, AssociationUnit, InstrumentShare, Owner, Parcel, PropertyAssociation

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
            raise FieldRefusal(ERR_REASON_REQUIRED, "reason")  # at the form's reason input (issue 16 "Forms")
    old = parcel.class_override
    parcel.class_override = property_class
    parcel.class_override_reason = reason.strip() if property_class else ""
    parcel.save(update_fields=["class_override", "class_override_reason"])
    audit_record(actor=acting_user, action="parcel.class_override", obj=parcel, why=reason,
                 data={"old": old, "new": property_class})
    return parcel


def validate_shares(percents: list[Decimal]) -> None:
    """The 100 % check on bare percentages (``stormwater calc split`` and tests): at least one, each > 0, the sum
    exactly 100 in Decimal (Ch. 295 Art. IV ¶G: the instrument "defines the percentage ... attributable to each
    unit"; the units together are the whole)."""
    if not percents:
        raise ValueError(ERR_SHARES_EMPTY)
    if any(p <= 0 for p in percents):
        raise ValueError("Each unit's percentage must be greater than zero.")
    total = sum(percents, Decimal(0))
    if total != HUNDRED:
        raise ValueError(ERR_SHARES_TOTAL.format(total=total))


# --- property associations' instruments (Ch. 295 Art. IV ¶G; issue 17) -------------------------------------

SHARE_PLACES = 4  # InstrumentShare.percent: 7 digits, 4 decimal places
ERR_NO_REFERENCE = "required: the Registry book/page or Land Court document number"
ERR_REFERENCE_LONG = "at most 200 characters"
ERR_DATE_REQUIRED = "required (YYYY-MM-DD)"
ERR_RECORDED_FUTURE = "{day} is after today ({today}): an instrument is submitted once it is recorded"
ERR_NAME = "required: the association's name (first instrument of this parcel)"
ERR_UNIT_BLANK = "required: the unit's parcel id"
ERR_UNIT_UNKNOWN = "{pid} is not a parcel in the Assessors' records"
ERR_UNIT_MASTER = "{pid} is the association's master parcel, not a unit"
ERR_UNIT_TWICE = "{pid} is already on row {row}: every unit is a distinct parcel"
ERR_UNIT_OTHER = "{pid} is a unit of {other} (parcel {master})"
ERR_UNIT_IS_MASTER = "{pid} is the master parcel of {other}: a master parcel is not a unit"
ERR_SHARE_NUMBER = "{raw!r} is not a percentage (a number such as 8.3333)"
ERR_SHARE_RANGE = "{pct} must be more than 0 and at most 100"
ERR_SHARE_PLACES = "{pct} has more than 4 decimal places"
ERR_SHARES_NOT_100 = "the shares total {total} %, not exactly 100 % (the instrument divides the whole)"
ERR_MASTER_IS_UNIT = "this parcel is a unit of {other} (parcel {master}); record the instrument on that parcel"


class AssociationRefused(ValueError):
    """An instrument that cannot be recorded as given: ``problems`` are {"row", "field", "message"} (row None for a
    field of the instrument itself); nothing was written. The API answers 400 with them (``json_detail``)."""

    def __init__(self, problems: list[dict]):
        self.problems = problems
        super().__init__("; ".join(_where(p) + p["message"] for p in problems))

    def json_detail(self) -> dict:
        return {"problems": self.problems}


def _where(p: dict) -> str:
    return (f"row {p['row']} {p['field']}: " if p.get("row") is not None else f"{p['field']}: ")


def parse_share(raw) -> Decimal:
    """A share as typed or filed ("8.3333", "8.3333 %", 8.3333) → Decimal; ValueError with the refusal."""
    text = str(raw if raw is not None else "").strip().rstrip("%").strip()
    try:
        pct = Decimal(text)
    except InvalidOperation:
        raise ValueError(ERR_SHARE_NUMBER.format(raw=str(raw)[:40])) from None
    if not pct.is_finite():
        raise ValueError(ERR_SHARE_NUMBER.format(raw=str(raw)[:40]))
    if pct <= 0 or pct > HUNDRED:
        raise ValueError(ERR_SHARE_RANGE.format(pct=text))
    if pct.as_tuple().exponent < -SHARE_PLACES and pct != pct.quantize(Decimal(1).scaleb(-SHARE_PLACES)):
        raise ValueError(ERR_SHARE_PLACES.format(pct=text))
    return pct


@dataclass
class CheckedShare:
    row: int
    parcel: Parcel
    percent: Decimal


def check_instrument(*, parcel: Parcel, shares: list[dict]) -> tuple[list[CheckedShare], list[dict]]:
    """The 100 % check of an instrument's unit rows (Ch. 295 Art. IV ¶G), without writing: each row
    {"row": n, "unit_parcel_id": str, "share_percent": str|Decimal}; → the rows resolved, and the problems, each
    naming the row and the field. Refused: no rows; a blank, unknown or repeated unit parcel id; the master parcel
    or another association's master parcel as a unit; a unit of another association; a share that is not a number
    over 0 and at most 100 with at most 4 decimal places; shares not totalling exactly 100 % (Decimal)."""
    problems: list[dict] = []

    def refuse(row, fld, msg):
        problems.append({"row": row, "field": fld, "message": msg})

    if not shares:
        refuse(None, "shares", ERR_SHARES_EMPTY)
        return [], problems
    pids = {str(r.get("unit_parcel_id") or "").strip() for r in shares}
    known = {p.parcel_id: p for p in Parcel.objects.filter(parcel_id__in=pids).select_related("owner")}
    units_elsewhere = {u.parcel_id: u for u in AssociationUnit.objects.filter(parcel__parcel_id__in=pids)
                       .exclude(association__parcel=parcel).select_related("association__parcel")}
    masters = {a.parcel_id: a for a in PropertyAssociation.objects.filter(parcel__parcel_id__in=pids)
               .exclude(parcel=parcel).select_related("parcel")}
    out, seen, total, all_numbers = [], {}, Decimal(0), True
    for i, r in enumerate(shares, 1):
        n = r.get("row") or i
        pid = str(r.get("unit_parcel_id") or "").strip()
        try:
            pct = parse_share(r.get("share_percent"))
            total += pct
        except ValueError as e:
            refuse(n, "share_percent", str(e))
            pct, all_numbers = None, False
        if not pid:
            refuse(n, "unit_parcel_id", ERR_UNIT_BLANK)
            continue
        p = known.get(pid)
        if p is None:
            refuse(n, "unit_parcel_id", ERR_UNIT_UNKNOWN.format(pid=pid[:60]))
            continue
        if p.pk == parcel.pk:
            refuse(n, "unit_parcel_id", ERR_UNIT_MASTER.format(pid=pid))
            continue
        if pid in seen:
            refuse(n, "unit_parcel_id", ERR_UNIT_TWICE.format(pid=pid, row=seen[pid]))
            continue
        seen[pid] = n
        if p.pk in masters:
            a = masters[p.pk]
            refuse(n, "unit_parcel_id", ERR_UNIT_IS_MASTER.format(pid=pid, other=a.name))
            continue
        if p.pk in units_elsewhere:
            a = units_elsewhere[p.pk].association
            refuse(n, "unit_parcel_id", ERR_UNIT_OTHER.format(pid=pid, other=a.name, master=a.parcel.parcel_id))
            continue
        if pct is not None:
            out.append(CheckedShare(n, p, pct))
    if all_numbers and total != HUNDRED:
        refuse(None, "share_percent", ERR_SHARES_NOT_100.format(total=total))
    return out, problems


def _unit_label(master: Parcel, unit: Parcel) -> str:
    """The unit's label on accounts and bills: what follows the master's id in the unit's parcel id
    (04-01-1-101 under 04-01-1 → "101"), else the unit's whole parcel id."""
    pid, prefix = unit.parcel_id, master.parcel_id
    for sep in ("-", "_", " ", "/", "."):
        if pid.startswith(prefix + sep) and len(pid) > len(prefix) + 1:
            return pid[len(prefix) + 1:]
    return pid


@dataclass
class CheckedInstrument:
    """An instrument that passed every check, not yet written (``association_preview``; ``association_record``)."""

    parcel: Parcel
    association: PropertyAssociation | None
    name: str
    reference: str
    recorded_on: date
    effective_on: date
    note: str
    shares: list[CheckedShare]

    def as_json(self) -> dict:
        return {"parcel_id": self.parcel.parcel_id,
                "name": self.name or (self.association.name if self.association else ""),
                "reference": self.reference, "recorded_on": self.recorded_on.isoformat(),
                "effective_on": self.effective_on.isoformat(), "note": self.note,
                "shares": [{"row": c.row, "unit_parcel_id": c.parcel.parcel_id,
                            "unit": _unit_label(self.parcel, c.parcel),
                            "owner": c.parcel.owner.name if c.parcel.owner else None,
                            "share_percent": str(c.percent)} for c in self.shares],
                "total_percent": str(sum((c.percent for c in self.shares), Decimal(0)))}


def association_check(*, parcel: Parcel, reference: str, recorded_on: date | None, effective_on: date | None = None,
                      shares: list[dict], name: str = "", note: str = "") -> CheckedInstrument:
    """Every check of ``association_record``, writing nothing: → the instrument as it would be recorded (the dry
    run of the page, the API and the import); ``AssociationRefused`` naming each row and field otherwise."""
    problems: list[dict] = []
    reference = (reference or "").strip()
    if not reference:
        problems.append({"row": None, "field": "reference", "message": ERR_NO_REFERENCE})
    elif len(reference) > 200:
        problems.append({"row": None, "field": "reference", "message": ERR_REFERENCE_LONG})
    if recorded_on is None:
        problems.append({"row": None, "field": "recorded_on", "message": ERR_DATE_REQUIRED})
    else:
        today = timezone.localdate()
        if recorded_on > today:
            problems.append({"row": None, "field": "recorded_on",
                             "message": ERR_RECORDED_FUTURE.format(day=recorded_on, today=today)})
    assoc = PropertyAssociation.objects.filter(parcel=parcel).first()
    name = (name or "").strip()[:200]
    if assoc is None and not name:
        problems.append({"row": None, "field": "name", "message": ERR_NAME})
    as_unit = AssociationUnit.objects.filter(parcel=parcel).select_related("association__parcel").first()
    if as_unit is not None:
        problems.append({"row": None, "field": "parcel", "message": ERR_MASTER_IS_UNIT.format(
            other=as_unit.association.name, master=as_unit.association.parcel.parcel_id)})
    checked, share_problems = check_instrument(parcel=parcel, shares=shares)
    problems += share_problems
    if problems:
        raise AssociationRefused(problems)
    return CheckedInstrument(parcel=parcel, association=assoc, name=name, reference=reference,
                             recorded_on=recorded_on, effective_on=effective_on or recorded_on,
                             note=(note or "").strip(), shares=checked)


def _same_as(inst: AssociationInstrument | None, c: CheckedInstrument) -> bool:
    if inst is None or (inst.reference, inst.recorded_on, inst.effective_on) != (c.reference, c.recorded_on,
                                                                                 c.effective_on):
        return False
    return ({(s.unit.parcel_id, s.percent) for s in inst.shares.select_related("unit")}
            == {(x.parcel.pk, x.percent) for x in c.shares})


@transaction.atomic
def association_record(*, parcel: Parcel, reference: str, recorded_on: date | None, effective_on: date | None = None,
                       shares: list[dict], name: str = "", note: str = "",
                       acting_user) -> tuple[AssociationInstrument, bool]:
    """Record a property association's instrument as submitted to the DPW (Ch. 295 Art. IV ¶G): a new dated
    instrument with its unit shares; the earlier ones stay (append-only) and govern the bills made before this one's
    ``effective_on`` (default: ``recorded_on``). ``shares``: [{"row", "unit_parcel_id", "share_percent"}]; every
    check first (``association_check``: the 100 % check and the instrument's own fields), each refusal naming its
    row and field (``AssociationRefused``); nothing is written then. → (instrument, created): the same instrument
    submitted again (same reference, dates and shares as the association's latest) is not recorded twice.

    Each unit is an ``AssociationUnit`` kept across instruments (its account and bills stay one): found by its
    parcel, or a unit of this association with the same label and no parcel yet (units on file before unit parcels
    were recorded) is tied to it, else created. Its billed owner is the unit parcel's owner of record now.
    One audit row (``association.instrument``)."""
    parcel = Parcel.objects.select_for_update().get(pk=parcel.pk)
    c = association_check(parcel=parcel, reference=reference, recorded_on=recorded_on, effective_on=effective_on,
                          shares=shares, name=name, note=note)
    assoc = c.association
    if assoc is not None:
        latest = assoc.instruments.order_by("-id").first()
        if _same_as(latest, c):
            association_unit_owners_refresh(parcel_ids=[x.parcel.parcel_id for x in c.shares], acting_user=acting_user,
                                            why=f"Instrument {c.reference} submitted again")
            return latest, False
    if assoc is None:
        assoc = PropertyAssociation.objects.create(parcel=parcel, name=c.name)
    elif c.name and c.name != assoc.name:
        assoc.name = c.name
        assoc.save(update_fields=["name"])
    inst = AssociationInstrument.objects.create(
        association=assoc, reference=c.reference, recorded_on=c.recorded_on, effective_on=c.effective_on,
        note=c.note, created_by=actor_or_none(acting_user))
    by_parcel = {u.parcel_id: u for u in assoc.units.filter(parcel__isnull=False)}
    by_label = {u.unit: u for u in assoc.units.filter(parcel__isnull=True)}
    rows = []
    for x in c.shares:
        unit = by_parcel.get(x.parcel.pk)
        if unit is None:
            unit = by_label.pop(_unit_label(parcel, x.parcel), None)
            if unit is None:
                unit = AssociationUnit.objects.create(association=assoc, unit=_unit_label(parcel, x.parcel),
                                                      parcel=x.parcel, owner=x.parcel.owner)
            else:
                unit.parcel = x.parcel
        if unit.owner_id != x.parcel.owner_id or unit.parcel_id != x.parcel.pk:
            unit.owner = x.parcel.owner
            unit.save(update_fields=["owner", "parcel"])
        rows.append(InstrumentShare(instrument=inst, unit=unit, percent=x.percent))
    InstrumentShare.objects.bulk_create(rows)
    audit_record(actor=acting_user, action="association.instrument", obj=assoc,
                 why=f"Instrument {c.reference}, recorded {day(c.recorded_on)}, effective {day(c.effective_on)}",
                 data={"instrument": inst.pk, "name": assoc.name,
                       "shares": [{"unit_parcel_id": x.parcel.parcel_id, "share_percent": str(x.percent)}
                                  for x in c.shares]})
    return inst, True


@transaction.atomic
def association_unit_owners_refresh(*, parcel_ids: list[str] | None = None, acting_user, why: str) -> int:
    """A unit is billed to its own parcel's owner of record (Ch. 295 Art. IV ¶G: "each individual owner"): bring
    the units whose parcel's owner changed (an assessor import; ``parcel_ids`` limits it to those parcels) up to
    date, one audit row each. → the number of units changed."""
    units = AssociationUnit.objects.filter(parcel__isnull=False, parcel__owner__isnull=False).select_related("parcel")
    if parcel_ids is not None:
        units = units.filter(parcel__parcel_id__in=parcel_ids)
    n = 0
    for u in units:
        if u.owner_id != u.parcel.owner_id:
            old = u.owner_id
            u.owner_id = u.parcel.owner_id
            u.save(update_fields=["owner"])
            audit_record(actor=acting_user, action="association_unit.owner", obj=u, why=why,
                         data={"unit_parcel_id": u.parcel.parcel_id, "old_owner": old, "new_owner": u.owner_id})
            n += 1
    return n


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
