"""The permit application before it is filed (Ch. 380 § 380-10 B): the draft opened by the owner or an agent, its
documents and checklist, the fees received, the certified abutter list and its mailing (§ 380-10 B(1)(b), H(1)).
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.db import transaction

from stormwater.accounts.roles import Perm
from stormwater.audit.services import actor_or_none, audit_record
from stormwater.cases.filetypes import DOCUMENT_TYPES, JSON_DATA, YAML_DATA
from stormwater.cases.models import CaseParty, PartyRole
from stormwater.cases.services import TransitionError, case_document_add, case_open, event_record
from stormwater.formats import day as show_day
from stormwater.parcels.selectors import parcels_for_user
from stormwater.rules.applicability import Determination

from . import workflow as wf
from .acts import PermitError, _lock, _today
from .checklist import BY_KEY, ITEMS
from .models import Abutter, ChecklistItem, PermitApplication
from .selectors import fees_due

S = wf.Status

ERR_NOT_YOUR_PARCEL = ("No such parcel of yours: {pids}. A permit is applied for on one's own parcels; an agent "
                       "applying for an owner files with the DPW (§ 380-10 B(1)).")
ERR_ABUTTERS_EMPTY = "Enter at least one abutter: one block per abutter, name on the first line."
ERR_DRAFT_ONLY = "This can be changed only before the application is filed."
ERR_FEES_BY_PAYMENT = ("The fees are recorded as a payment with its receipt (Fees: Record payment), not ticked "
                       "(§ 380-10 B(1)(e), G(1)).")


@transaction.atomic
def permit_application_start(*, acting_user, owner_name: str, site_address: str, description: str,
                             disturbance_sqft: Decimal, owner=None, owner_address: str = "", agent_name: str = "",
                             parcels=(), project_type: str = "new", determination: Determination | None = None,
                             wetlands_jurisdiction: bool = False, other_board_hearing: str = "",
                             planning_board: bool = False, autocad_plans: bool = False) -> PermitApplication:
    """Open a draft permit file (§ 380-10 B): the permittee is the owner; an agent may apply. Anyone but permit
    staff names only their own parcels (issue 14: a draft opened on another owner's parcel showed in that owner's
    account); staff open walk-in and agents' filings on any parcel."""
    if acting_user is not None and not acting_user.can(Perm.PERMIT_REVIEW) and parcels:
        mine = set(parcels_for_user(user=acting_user).filter(pk__in=[p.pk for p in parcels])
                   .values_list("pk", flat=True))
        foreign = sorted(p.parcel_id for p in parcels if p.pk not in mine)
        if foreign:
            raise TransitionError(ERR_NOT_YOUR_PARCEL.format(pids=", ".join(foreign)))
    case = case_open(kind=wf.PERMIT, title=f"{site_address}: {description[:120]}", acting_user=acting_user,
                     applicant=actor_or_none(acting_user))
    seg = bool(determination and determination.segmentation)
    app = PermitApplication.objects.create(
        case=case, owner=owner, owner_name=owner_name, owner_address=owner_address or (owner.mailing_address if owner
                                                                                      else ""),
        agent_name=agent_name, site_address=site_address, description=description, project_type=project_type,
        disturbance_sqft=Decimal(disturbance_sqft), determination=determination.as_json() if determination else {},
        segmentation_flagged=seg, wetlands_jurisdiction=wetlands_jurisdiction, other_board_hearing=other_board_hearing,
        planning_board=planning_board, autocad_plans=autocad_plans)
    if parcels:
        app.parcels.set(parcels)
    CaseParty.objects.create(case=case, role=PartyRole.OWNER, name=owner_name, mailing_address=app.owner_address,
                             user=owner.user if owner else None)
    if agent_name:
        CaseParty.objects.create(case=case, role=PartyRole.AGENT, name=agent_name,
                                 user=actor_or_none(acting_user))
    for item in ITEMS:
        na = ""
        if item.key == "autocad" and not autocad_plans:
            na = "Plans not drawn in AutoCAD (§ 380-10 B(2))"
        if item.key == "abutter_notice_proof" and other_board_hearing:
            na = f"Waived: {other_board_hearing} holds a public hearing on the project (§ 380-10 H(3))"
        ChecklistItem.objects.create(application=app, key=item.key, not_applicable_reason=na)
    audit_record(actor=acting_user, action="permit.start", obj=app, why=site_address,
                 data={"disturbance_sqft": str(app.disturbance_sqft), "segmentation_flagged": seg})
    return app


@transaction.atomic
def permit_document_upload(*, application: PermitApplication, upload, tag: str, title: str = "", acting_user):
    """Add a document to the file; a checklist tag satisfies that item (§ 380-10 B)."""
    app = _lock(application)
    label = BY_KEY[tag].label if tag in BY_KEY else title
    # the applicant's documents, and the stormwater management plan as data (YAML/JSON) for the engineering review
    # (issue 18: the plan's data file was refused as an upload type)
    doc = case_document_add(case=app.case, upload=upload, tag=tag, title=title or label, acting_user=acting_user,
                            types=DOCUMENT_TYPES + (JSON_DATA, YAML_DATA))
    if tag in BY_KEY and BY_KEY[tag].by_upload:
        ChecklistItem.objects.filter(application=app, key=tag).update(satisfied_on=_today(), document=doc)
    return doc


@transaction.atomic
def checklist_confirm(*, application: PermitApplication, key: str, acting_user, note: str = "",
                      on: date | None = None) -> ChecklistItem:
    """Staff confirm an item that is not an upload (paper copies, fees paid) or accept one on paper."""
    if key not in BY_KEY:
        raise ValueError(f"no checklist item {key!r}")
    if key == "fees":  # issue 30: the fees item is the payment recorded with its receipt, never a bare tick
        raise PermitError(ERR_FEES_BY_PAYMENT, field="key")
    return _item_received(application, key, acting_user=acting_user, on=on, note=note)


def _item_received(application, key, *, acting_user, on, note) -> ChecklistItem:
    item = ChecklistItem.objects.select_for_update().get(application=application, key=key)
    item.satisfied_on = on or _today()
    item.note = note[:300]
    item.save(update_fields=["satisfied_on", "note"])
    event_record(case=application.case, kind="checklist", acting_user=acting_user, on=item.satisfied_on,
                 why=f"{BY_KEY[key].label}: received" + (f" ({note})" if note else ""), data={"item": key})
    return item


ERR_FEE_PAID_ONLINE = ("The application fees were paid online (confirmation {confirmation}, {state}): they are not "
                       "taken again at the counter (§ 380-10 G(1): the fee is obtained once).")


@transaction.atomic
def permit_fees_paid(*, application: PermitApplication, paid_on: date, receipt: str, acting_user,
                     online_payment=None) -> None:
    """The application, inspection and technical review fees received (§ 380-10 B(1)(e), G(1)): at the counter, or
    (issue 30) paid online, when the processor's settlement reaches the Town (``online_payment``: the
    ``receivables.OnlinePayment`` receipted, receivables/online_fees.py). The counter refuses a fee paid online
    (pending settlement or settled): one fee, obtained once."""
    app = _lock(application)
    paid_online = app.online_payments.filter(state="paid")
    if online_payment is not None:
        paid_online = paid_online.exclude(pk=online_payment.pk)
    other = paid_online.order_by("paid_at", "id").first()
    if other is not None:
        raise PermitError(ERR_FEE_PAID_ONLINE.format(
            confirmation=other.confirmation,
            state=f"settled {other.settled_on}" if other.settled_on else "pending settlement"), field="receipt")
    app.fees_paid_on, app.fees_receipt = paid_on, receipt
    if app.fees_total is None:  # the fee due as paid (issue 30: paid before filing, from the schedule in force)
        app.fees, app.fees_total, app.fee_schedule = fees_due(app, paid_on)
    app.save(update_fields=["fees_paid_on", "fees_receipt", "fees", "fees_total", "fee_schedule"])
    _item_received(app, "fees", acting_user=acting_user, on=paid_on, note=f"receipt {receipt}")


def parse_abutters(text: str) -> list[tuple[str, str]]:
    """Blocks separated by a blank line: the name on the first line, the mailing address below."""
    out = []
    for block in [b.strip() for b in text.replace("\r\n", "\n").split("\n\n")]:
        lines = [x.strip() for x in block.split("\n") if x.strip()]
        if lines:
            out.append((lines[0], "\n".join(lines[1:])))
    return out


@transaction.atomic
def abutters_set(*, application: PermitApplication, text: str, certified_on: date, acting_user) -> int:
    """The abutter list certified by the Assessor's office (§ 380-10 B(1)(b))."""
    app = _lock(application)
    if app.case.status not in (S.DRAFT, S.FILED, S.INCOMPLETE):
        raise TransitionError(ERR_DRAFT_ONLY)
    rows = parse_abutters(text)
    if not rows:
        raise PermitError(ERR_ABUTTERS_EMPTY, field="abutters")
    app.abutters.all().delete()
    Abutter.objects.bulk_create(Abutter(application=app, name=n, mailing_address=a) for n, a in rows)
    app.abutter_list_certified_on = certified_on
    app.save(update_fields=["abutter_list_certified_on"])
    event_record(case=app.case, kind="abutters", acting_user=acting_user, on=certified_on,
                 why=f"{len(rows)} abutters from the list certified by the Assessors on {show_day(certified_on)}")
    return len(rows)


@transaction.atomic
def abutters_mailed(*, application: PermitApplication, mailed_on: date, certified_numbers: dict[int, str] | None = None,
                    acting_user) -> None:
    """Record the certified mailing to the abutters (§ 380-10 H(1)); the proof is uploaded as a checklist item."""
    app = _lock(application)
    app.abutters_mailed_on = mailed_on
    app.save(update_fields=["abutters_mailed_on"])
    for pk, number in (certified_numbers or {}).items():
        Abutter.objects.filter(application=app, pk=pk).update(certified_mail_number=number)
    event_record(case=app.case, kind="abutters.mailed", acting_user=acting_user, on=mailed_on,
                 why=f"Abutter letters sent by certified mail on {show_day(mailed_on)} (§ 380-10 H(1))")
