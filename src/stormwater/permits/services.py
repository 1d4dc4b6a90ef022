"""State changes of a permit file (Ch. 380 § 380-10), each atomic, audited, on the case timeline.

Status moves go through ``cases.services.case_transition`` (the table in ``workflow``); the
preconditions each move needs are checked here and refused with a message naming the rule.
"""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from stormwater.accounts.roles import Perm
from stormwater.audit.services import actor_or_none, audit_record
from stormwater.cases.filetypes import DOCUMENT_TYPES, JSON_DATA, YAML_DATA
from stormwater.cases.filing import filed_on
from stormwater.parcels.selectors import parcels_for_user
from stormwater.cases.models import Case, CaseParty, PartyRole
from stormwater.cases.services import (TransitionError, case_document_add, case_document_generate, case_open,
                                       case_transition, clock_extend, clock_meet, clock_running, clock_start,
                                       event_record)
from stormwater.rules.applicability import Determination
from stormwater.rules.calendar import add_months
from stormwater.rules.clocks import Unit, interval_is_at_least, length_to_date
from stormwater.rules.money import ZERO, fmt, fmt_display, round_cents
from stormwater.rules.permit_fees import fees_total, permit_fees
from stormwater.formats import day as show_day

from . import documents
from . import workflow as wf
from .checklist import BY_KEY, ITEMS
from .models import (Abutter, AccountEntry, AccountEntryKind, ChecklistItem, ConsultantAppeal, ConsultantEngagement,
                     DecisionKind, FilingNotice, InformationRequest, NoticeRecipient, PermitApplication,
                     PermitCondition, ProjectChange, RuleHearing, Waiver)
from .selectors import account_balance_of, checklist_missing, current_engagement, fee_schedule_in_force, fee_terms

S = wf.Status

# Lengths of the clocks, each with its rule.
ACTION_DAYS = 42              # § 380-10 I(2): final action within 42 days of the date of filing
WITHDRAWAL_DAYS = 5           # § 380-10 G(2)(c): withdrawn within five days of the notice: no consultant cost
PAYMENT_BUSINESS_DAYS = 10    # § 380-10 G(2)(d): consultant fee within 10 business days of the request
APPEAL_DAYS = 10              # § 380-10 G(2)(e): appeal received within 10 days of the fee request
REFUND_DAYS = 30              # § 380-10 G(2)(f): balance returned within 30 days
START_MONTHS = 24             # § 380-10 K: the project shall begin within two years after issuance
HEARING_NOTICE_DAYS = 7       # § 380-7: hearing advertised at least seven days before
MIN_YEARS_PRACTICE = 3        # § 380-10 G(2)(e): a degree or three or more years of practice

ERR_NOT_OWNER = ("The permittee must be the owner of the site (§ 380-10 B(1)): parcel {pid} is owned by {owner}, "
                 "not {permittee}.")
ERR_INCOMPLETE_ITEMS = "The application is not complete (§ 380-10 D). Missing: {items}."
ERR_NOTHING_MISSING = "Every checklist item is in: the application cannot be found incomplete for missing items."
ERR_CURE_DATE = "The date for the missing items must be after the determination (§ 380-10 D)."
ERR_CURE_NOT_PASSED = ("The application may be denied as administratively incomplete only after the date set for the "
                       "missing items ({due}) has passed (§ 380-10 D).")
ERR_ITEMS_STILL_MISSING = "Items are still missing: {items}."
ERR_NO_INFO = "Say what information is requested (§ 380-10 E)."
ERR_QUALIFIED = ("The consultant must hold an educational degree or have three or more years of practice in the field "
                 "(§ 380-10 G(2)(e)).")
ERR_FEE_POSITIVE = "The consultant fee must be more than $0."
ERR_APPEAL_LATE = "The appeal had to be received within 10 days of the fee request, by {due} (§ 380-10 G(2)(e))."
ERR_APPEAL_GROUND = "The Select Board may disqualify only for a conflict of interest or lack of minimum qualifications."
ERR_NO_ENGAGEMENT = "No outside consultant is engaged on this application (selected and paid)."
ERR_NO_OPEN_APPEAL = "There is no appeal awaiting the Select Board's decision."
ERR_NOT_OVERDUE = ("The consultant fee is not overdue: the 10-business-day period runs to {due} (§ 380-10 G(2)(d)).")
ERR_PAYMENT_STOPPED = "The payment countdown is stopped by an appeal (§ 380-10 G(2)(d))."
ERR_FEE_PAID = "The consultant fee has been received."
ERR_STANDARDS = "A decision must cite the standards it rests on (§ 380-10 I(1), § 380-11)."
ERR_CONDITIONS = "An approval with conditions must list its conditions (§ 380-10 I(1)(b))."
ERR_FINDINGS = "A decision must state its findings in writing (§ 380-10 I(1))."
ERR_CONDITIONS_KIND = ("Conditions are part of an “Approval with conditions, modifications or restrictions” "
                       "(§ 380-10 I(1)(b)): choose that decision, or clear the conditions for a {kind}.")
ERR_WAIVERS_OPEN = "Waiver requests are still open: decide them first (§ 380-8)."
ERR_CONSULTANT_UNPAID = "The consultant fee must be received before review (§ 380-10 G(2)(d))."
ERR_AMOUNT = "Amounts must be more than $0."
ERR_OVERDRAWN = "The special account holds {balance}: an expenditure of {amount} would overdraw it (MGL c.44 §53G)."
ERR_NO_CONSULTANT_COST = ("The application was withdrawn within five days of the consultant notice: no consultant "
                          "costs may be charged (§ 380-10 G(2)(c)).")
ERR_EXPENDITURE_NO_ENGAGEMENT = ("Expenditures may be made only for consultant services on this project "
                                 "(§ 380-10 G(2)(a)).")
ERR_NOT_CLOSED = "The balance is refunded when review and oversight are complete: close the file first."
ERR_NOTHING_TO_REFUND = "The special account has no balance to refund."
ERR_SUCCESSOR_DOCS = ("A successor in interest must provide documentation (§ 380-10 G(2)(f)): upload it to the file "
                      "first.")
ERR_NOT_YOUR_PARCEL = ("No such parcel of yours: {pids}. A permit is applied for on one's own parcels; an agent "
                       "applying for an owner files with the DPW (§ 380-10 B(1)).")
ERR_FUTURE_DATE = "The date received must not be in the future."
ERR_NOT_APPROVED = "Only an approved permit has project changes and a start date (§ 380-10 J, K)."
ERR_HEARING_NOTICE = ("The hearing must be advertised at least seven days before the hearing date (§ 380-7): "
                      "advertised {adv}, hearing {hearing}.")
ERR_WAIVER_COMMENT = "A waiver request must have had its opportunity for public comment (§ 380-8 C)."
ERR_WAIVER_FINDINGS = ("A waiver may be granted only where it is allowed by law, in the public interest and not "
                       "inconsistent with the purpose of the bylaw and rules (§ 380-8 A(1)–(3)).")
ERR_WAIVER_JUSTIFY = "A waiver request needs an explanation or documentation supporting it (§ 380-8 B)."
ERR_ABUTTERS_EMPTY = "Enter at least one abutter: one block per abutter, name on the first line."
ERR_CLOSE_CONSTRUCTION = ("Oversight is not complete: the construction file {case} has no certificate of completion "
                          "(§ 380-18). The file closes when the certificate is issued.")
ERR_START_NO_FILE = ("No construction file is open for this permit: the Director opens it, and the start of land "
                     "disturbance is recorded there once the pre-construction checks pass (§ 380-16 A–C, § 380-17 A).")
ERR_START_VIA_FILE = ("The start of land disturbance is recorded on the construction file {case}, once the "
                      "pre-construction checks pass (§ 380-16 A–C, § 380-17 A).")
ERR_DRAFT_ONLY = "This can be changed only before the application is filed."


class PermitError(ValueError):
    """A refusal about one input: the message says why (and the Ch. 380 provision), ``field`` names the posted input
    it concerns, so a refused staff form shows it at that input (issue 16 "Forms": ``web.postdata.refused``)."""

    def __init__(self, message: str = "", field: str | None = None):
        super().__init__(message)
        self.field = field


def _today() -> date:
    return timezone.localdate()


def _lock(app: PermitApplication) -> PermitApplication:
    return PermitApplication.objects.select_for_update().select_related("case").get(pk=app.pk)


def _keep_pdf(app, content: bytes, *, tag: str, title: str, filename: str, acting_user):
    return case_document_generate(case=app.case, content=content, filename=filename, tag=tag, title=title,
                                  acting_user=acting_user)


def _letter(app, *, tag, title, filename, subject, paragraphs, items=None, citation="", on, acting_user,
            to_name=None, to_address=None):
    pdf = documents.letter_pdf(application=app, subject=subject, to_name=to_name or app.owner_name,
                               to_address=app.owner_address if to_address is None else to_address,
                               paragraphs=paragraphs, items=items, citation=citation, on=on)
    doc = _keep_pdf(app, pdf, tag=tag, title=title, filename=filename, acting_user=acting_user)
    applicant = app.case.applicant
    if applicant is not None and applicant.email:  # the letter also goes by email where we have an address
        _send_on_commit(subject, "\n\n".join(paragraphs), applicant.email, filename, pdf, case=app.case, kind=tag)
    return doc


# --- application and package ----------------------------------------------------------------------

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
    item = ChecklistItem.objects.select_for_update().get(application=application, key=key)
    item.satisfied_on = on or _today()
    item.note = note[:300]
    item.save(update_fields=["satisfied_on", "note"])
    event_record(case=application.case, kind="checklist", acting_user=acting_user, on=item.satisfied_on,
                 why=f"{BY_KEY[key].label}: received" + (f" ({note})" if note else ""), data={"item": key})
    return item


@transaction.atomic
def permit_fees_paid(*, application: PermitApplication, paid_on: date, receipt: str, acting_user) -> None:
    """The application, inspection and technical review fees received (§ 380-10 B(1)(e), G(1))."""
    app = _lock(application)
    app.fees_paid_on, app.fees_receipt = paid_on, receipt
    app.save(update_fields=["fees_paid_on", "fees_receipt"])
    checklist_confirm(application=app, key="fees", acting_user=acting_user, on=paid_on, note=f"receipt {receipt}")


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


# --- filing, notices, completeness ----------------------------------------------------------------

def filing_recipients(app: PermitApplication) -> list[NoticeRecipient]:
    """§ 380-10 F: the Town Clerk; Planning and Community Development; the Building Commissioner; the
    Conservation Commission (Wetlands Protection Act jurisdiction) and/or the Planning Board as appropriate."""
    keys = ["town_clerk", "planning", "building"]
    if app.wetlands_jurisdiction:
        keys.append("concom")
    if app.planning_board:
        keys.append("planning_board")
    found = {r.key: r for r in NoticeRecipient.objects.filter(key__in=keys, active=True)}
    return [found[k] for k in keys if k in found]


def _send_on_commit(subject: str, body: str, to: str, filename: str, pdf: bytes, *, case=None,
                    kind: str = "letter") -> None:
    """Email after commit, with a NoticeSent record of what went to whom and when (stormwater.notices)."""
    from stormwater.notices.services import notice_email

    notice_email(to=to, subject=subject, body=body, kind=kind, case=case,
                 attachment=(filename, pdf, "application/pdf"))


def _filing_notices(app: PermitApplication, *, on: date, acting_user) -> list[FilingNotice]:
    out = []
    for r in filing_recipients(app):
        if r.key == "town_clerk":
            paragraphs = [
                f"The Department of Public Works received on {on:%B %-d, %Y} an application for a stormwater "
                f"management and land disturbance permit, {app.case.number}, for {app.site_address} "
                f"(permittee: {app.owner_name}).",
                "Abutters have been told to contact the Town Clerk for the application documents and to comment "
                "directly to the DPW Director (§ 380-10 H(1)). An electronic copy of the package is available from "
                "the Stormwater Division.",
            ]
            subject = f"Notice of receipt: stormwater permit application {app.case.number}"
            cite = "Ch. 380 § 380-10 F: the DPW Director shall notify the Town Clerk of receipt of the application."
        else:
            paragraphs = [
                f"Enclosed by electronic copy is the application package {app.case.number} for a stormwater "
                f"management and land disturbance permit at {app.site_address} (permittee: {app.owner_name}), "
                f"filed {on:%B %-d, %Y}.",
                f"Project: {app.description}",
                "Please send any comments to the DPW Director so they can be considered in the review "
                "(§ 380-10 H(2)).",
            ]
            if r.key == "concom":
                paragraphs.append("Where stormwater discharges are subject to the Wetlands Protection Act, an Order of "
                                  "Conditions demonstrating compliance with the Massachusetts Stormwater Management "
                                  "Standards and the MS4 permit standards will serve as the permit (§ 380-9 A).")
            subject = f"Stormwater permit application {app.case.number}: copy for review"
            cite = "Ch. 380 § 380-10 F: one electronic copy of the application package to the boards and officers."
        pdf = documents.letter_pdf(application=app, subject=subject, to_name=r.name, to_address="Town of Longmeadow",
                                   paragraphs=paragraphs, citation=cite, on=on)
        doc = _keep_pdf(app, pdf, tag="filing_notice", title=f"Filing notice to {r.name}",
                        filename=f"{app.case.number}-notice-{r.key}.pdf", acting_user=acting_user)
        out.append(FilingNotice.objects.create(application=app, recipient_key=r.key, recipient_name=r.name,
                                               email=r.email, sent_on=on, document=doc))
        if r.email:
            _send_on_commit(subject, "\n\n".join(paragraphs), r.email, doc.original_name, pdf, case=app.case,
                            kind=f"filing_notice:{r.key}")
        event_record(case=app.case, kind="notice", acting_user=acting_user, on=on,
                     why=f"Filing notice to {r.name}" + (f" emailed to {r.email}" if r.email else " (no email "
                                                                                                    "configured: printed)"),
                     data={"recipient": r.key, "document": doc.pk})
    return out


def permittee_check(app: PermitApplication) -> None:
    """§ 380-10 B(1): the permittee must be the owner of the site (of every site parcel with an owner on record)."""
    for p in app.parcels.select_related("owner"):
        if p.owner is not None and app.owner is not None and p.owner_id != app.owner_id:
            raise TransitionError(ERR_NOT_OWNER.format(pid=p.parcel_id, owner=p.owner.name, permittee=app.owner_name))


@transaction.atomic
def permit_file(*, application: PermitApplication, acting_user, on: date | None = None) -> PermitApplication:
    """File the package (§ 380-10 B): fees from the schedule in force, the 42-day clock (§ 380-10 I(2)),
    notices to the Town Clerk and the boards (§ 380-10 F)."""
    app = _lock(application)
    on = on or _today()
    case_transition(case=app.case, to=S.FILED, acting_user=acting_user, on=on, why="Application filed",
                    check=lambda c: permittee_check(app))
    schedule = fee_schedule_in_force(on)
    if schedule is not None:
        lines = permit_fees(app.disturbance_sqft, fee_terms(schedule))
        app.fee_schedule = schedule
        app.fees = [{"label": x.label, "amount": fmt(x.amount), "citation": x.citation} for x in lines]
        app.fees_total = fees_total(lines)
    Case.objects.filter(pk=app.case_id).update(filed_on=on)
    app.save(update_fields=["fee_schedule", "fees", "fees_total"])
    clock_start(case=app.case, kind=wf.ACTION, label="Final action on the application", citation="§ 380-10 I(2)",
                start=on, length=ACTION_DAYS, acting_user=acting_user)
    _filing_notices(app, on=on, acting_user=acting_user)
    return app


@transaction.atomic
def permit_determine_complete(*, application: PermitApplication, acting_user, on: date | None = None):
    """§ 380-10 D: complete → review may begin. Every checklist item must be in."""
    app = _lock(application)

    def check(_):
        missing = checklist_missing(app)
        if missing:
            raise TransitionError(ERR_INCOMPLETE_ITEMS.format(items="; ".join(missing)))
    case_transition(case=app.case, to=S.UNDER_REVIEW, acting_user=acting_user, on=on, check=check,
                    why="Application determined complete (§ 380-10 D)")
    return app


@transaction.atomic
def permit_determine_incomplete(*, application: PermitApplication, cure_by: date, acting_user, note: str = "",
                                on: date | None = None):
    """§ 380-10 D: incomplete — the items, the date by which they must come or the application is
    denied as administratively incomplete; the review period is extended meanwhile (toll)."""
    app = _lock(application)
    on = on or _today()
    missing = checklist_missing(app)

    def check(_):
        if not missing and not note.strip():
            raise TransitionError(ERR_NOTHING_MISSING)
        if cure_by <= on:
            raise TransitionError(ERR_CURE_DATE, field="cure_by")
    case_transition(case=app.case, to=S.INCOMPLETE, acting_user=acting_user, on=on, check=check,
                    why=f"Incomplete; items due by {cure_by}" + (f". {note}" if note else ""),
                    data={"missing": missing, "cure_by": str(cure_by)})
    clock_start(case=app.case, kind=wf.CURE, label="Missing items due", citation="§ 380-10 D", start=on,
                length=length_to_date(on, cure_by), roll=False, acting_user=acting_user)
    _letter(app, tag="incomplete_notice", title="Notice of incomplete application",
            filename=f"{app.case.number}-incomplete-{on}.pdf", on=on, acting_user=acting_user,
            subject=f"Application {app.case.number} is incomplete",
            paragraphs=[f"The DPW Director has determined that your application for a stormwater management and land "
                        f"disturbance permit at {app.site_address} is incomplete. No review takes place until the "
                        "application is complete.",
                        f"The application will be denied as administratively incomplete unless the items below are "
                        f"addressed by {cure_by:%A, %B %-d, %Y}.",
                        "The period for final action is extended while the application is incomplete, to allow you "
                        "to provide the required information and the Director to review it once complete."]
            + ([note] if note else []),
            items=missing, citation="Ch. 380 § 380-10 D (determination of completeness), § 380-10 I(2).")
    return app


@transaction.atomic
def permit_items_received(*, application: PermitApplication, acting_user, on: date | None = None, note: str = ""):
    """The applicant has addressed the missing items: back to the completeness determination; the
    action clock resumes (its toll ends)."""
    app = _lock(application)
    case_transition(case=app.case, to=S.FILED, acting_user=acting_user, on=on,
                    why="Missing items submitted" + (f": {note}" if note else ""))
    return app


@transaction.atomic
def permit_deny_incomplete(*, application: PermitApplication, acting_user, on: date | None = None):
    """§ 380-10 D: denial as administratively incomplete once the Director's date has passed."""
    app = _lock(application)
    on = on or _today()
    cure = clock_running(case=app.case, kind=wf.CURE)

    def check(_):
        due = cure.state().due if cure else None
        if due is not None and on <= due:
            raise TransitionError(ERR_CURE_NOT_PASSED.format(due=due))
    case_transition(case=app.case, to=S.DENIED, acting_user=acting_user, on=on, check=check,
                    why="Denied as administratively incomplete (§ 380-10 D)")
    return _record_decision(app, kind=DecisionKind.DENY_INCOMPLETE, on=on, acting_user=acting_user,
                            findings="The application was not completed by the date set by the DPW Director.",
                            standards=["§ 380-10 D"])


@transaction.atomic
def permit_request_information(*, application: PermitApplication, items: str, acting_user,
                               on: date | None = None) -> InformationRequest:
    """§ 380-10 E: information the Director needs; the 42 days stand still while it is outstanding (I(2))."""
    app = _lock(application)
    on = on or _today()
    if not items.strip():
        raise PermitError(ERR_NO_INFO, field="items")
    case_transition(case=app.case, to=S.INFO_REQUESTED, acting_user=acting_user, on=on,
                    why=f"Information requested: {items[:200]}")
    lines = [x.strip() for x in items.splitlines() if x.strip()]
    doc = _letter(app, tag="info_request", title="Request for information", on=on, acting_user=acting_user,
                  filename=f"{app.case.number}-info-request-{on}.pdf",
                  subject=f"Application {app.case.number}: additional information requested",
                  paragraphs=["To issue a decision on your application the DPW Director requests the information "
                              "below. Please submit it to the Stormwater Division.",
                              "The period for final action is extended while the information is outstanding, to "
                              "allow you to provide it and the Director to review it."],
                  items=lines, citation="Ch. 380 § 380-10 E (information requests), § 380-10 I(2).")
    return InformationRequest.objects.create(application=app, requested_on=on, items=items,
                                             requested_by=acting_user if acting_user and acting_user.is_authenticated
                                             else None, document=doc)


@transaction.atomic
def permit_information_received(*, application: PermitApplication, response: str, acting_user,
                                on: date | None = None) -> InformationRequest:
    """The applicant's response (§ 380-10 E); review resumes and so does the action clock."""
    app = _lock(application)
    on = on or _today()
    case_transition(case=app.case, to=S.UNDER_REVIEW, acting_user=acting_user, on=on,
                    why="Requested information received")
    req = app.info_requests.filter(responded_on__isnull=True).order_by("-id").first()
    if req is not None:
        req.responded_on, req.response = on, response
        req.save(update_fields=["responded_on", "response"])
    return req


@transaction.atomic
def permit_extend(*, application: PermitApplication, days: int, reason: str, acting_user):
    """An extension of the 42-day period with its reason (§ 380-10 I(2): the DPW requires additional time,
    or agreed with the applicant)."""
    if days <= 0:
        raise PermitError("An extension adds at least one day.", field="days")
    return clock_extend(case=application.case, kind=wf.ACTION, days=days, reason=reason, acting_user=acting_user)


@transaction.atomic
def permit_withdraw(*, application: PermitApplication, acting_user, why: str = "", on: date | None = None):
    app = _lock(application)
    case_transition(case=app.case, to=S.WITHDRAWN, acting_user=acting_user, on=on,
                    why="Withdrawn by the applicant" + (f": {why}" if why else ""))
    return app


# --- outside consultant and the 53G special account ------------------------------------------------

@transaction.atomic
def consultant_select(*, application: PermitApplication, name: str, services: str, fee: Decimal, notice_on: date,
                      acting_user, firm: str = "", degree: str = "", years_of_practice: int = 0,
                      user=None) -> ConsultantEngagement:
    """§ 380-10 G(2)(c): written notice of the consultant, the fee and a request for payment in full.
    Starts the 5-day withdrawal window, the 10-business-day payment countdown and the 10-day appeal window."""
    app = _lock(application)
    if not degree.strip() and years_of_practice < MIN_YEARS_PRACTICE:
        raise PermitError(ERR_QUALIFIED, field="degree")
    fee = round_cents(Decimal(fee))
    if fee <= 0:
        raise PermitError(ERR_FEE_POSITIVE, field="fee")
    case_transition(case=app.case, to=S.CONSULTANT_FEE_DUE, acting_user=acting_user, on=notice_on,
                    why=f"Outside consultant {name} selected; fee ${fmt(fee)} requested (§ 380-10 G(2)(c))")
    eng = ConsultantEngagement.objects.create(application=app, name=name, firm=firm, degree=degree,
                                              years_of_practice=years_of_practice, services=services, fee=fee,
                                              notice_on=notice_on, user=user)
    w = clock_start(case=app.case, kind=wf.CONSULTANT_WITHDRAWAL, label="Withdrawal without consultant cost",
                    citation="§ 380-10 G(2)(c)", start=notice_on, length=WITHDRAWAL_DAYS, window=True,
                    acting_user=acting_user)
    p = clock_start(case=app.case, kind=wf.CONSULTANT_PAYMENT, label="Consultant fee payment",
                    citation="§ 380-10 G(2)(d)", start=notice_on, length=PAYMENT_BUSINESS_DAYS, unit=Unit.BUSINESS,
                    acting_user=acting_user)
    a = clock_start(case=app.case, kind=wf.CONSULTANT_APPEAL_WINDOW, label="Appeal of the selection to the Select Board",
                    citation="§ 380-10 G(2)(e)", start=notice_on, length=APPEAL_DAYS, window=True,
                    acting_user=acting_user)
    eng.document = _letter(
        app, tag="consultant_notice", title="Notice of outside consultant and request for payment", on=notice_on,
        acting_user=acting_user, filename=f"{app.case.number}-consultant-notice-{notice_on}.pdf",
        subject=f"Application {app.case.number}: outside consultant and request for payment",
        paragraphs=[
            f"Under MGL c.44 §53G and § 380-10 G(2) the DPW Director has selected {name}"
            + (f" of {firm}" if firm else "") + f" to advise on your application: {services}",
            f"The fee to be charged to you is ${fmt_display(fee)}. Please pay the fee in its entirety; it is deposited in "
            "a special account with the Town Treasurer and spent only on this project. Any balance, with interest, "
            "is returned to you when the review and oversight are complete.",
            f"No consultant costs are incurred if the application is withdrawn within five days of this notice, by "
            f"{w.state().due:%B %-d, %Y}.",
            f"Payment is due within 10 business days of this request, by {p.state().due:%B %-d, %Y}. Failure to pay, "
            "or refusal of payment, is cause for the Director to deny the application for lack of sufficient "
            "information.",
            f"You may appeal the selection to the Select Board, in writing, received by the Select Board (with a copy "
            f"to the DPW Director) by {a.state().due:%B %-d, %Y}. The Board may disqualify the consultant only for a "
            "conflict of interest or lack of the minimum qualifications (an educational degree or three or more "
            "years of practice in the field). An appeal stops the payment countdown, which resumes on the first "
            "business day after the appeal is decided, and extends the time for action by the appeal's duration.",
        ],
        items=[f"Consultant: {name}" + (f", {firm}" if firm else ""),
               f"Qualifications: {degree or ''}{'; ' if degree and years_of_practice else ''}"
               f"{f'{years_of_practice} years of practice' if years_of_practice else ''}",
               f"Fee requested: ${fmt_display(fee)}"],
        citation="Ch. 380 § 380-10 G(2)(c)–(e); MGL c.44 §53G.")
    eng.save(update_fields=["document"])
    return eng


def _account_entry(app, *, kind, amount, on, memo, acting_user, payee="", reference="") -> AccountEntry:
    amount = round_cents(Decimal(amount))
    if amount <= 0:
        raise ValueError(ERR_AMOUNT)
    e = AccountEntry.objects.create(application=app, kind=kind, amount=amount, on=on, memo=memo, payee=payee,
                                    reference=reference,
                                    recorded_by=acting_user if acting_user and acting_user.is_authenticated else None)
    event_record(case=app.case, kind=f"account.{kind}", acting_user=acting_user, on=on,
                 why=f"53G account: {AccountEntryKind(kind).label} ${fmt(amount)} — {memo}",
                 data={"entry": e.pk, "amount": fmt(amount)})
    audit_record(actor=acting_user, action=f"permit.account.{kind}", obj=e, why=memo, data={"amount": fmt(amount)})
    return e


@transaction.atomic
def consultant_fee_deposit(*, application: PermitApplication, amount: Decimal, on: date, reference: str,
                           acting_user) -> AccountEntry:
    """The consultant fee received and deposited with the Treasurer (§ 380-10 G(2)(a)). Once the requested
    fee is in full, the consultant is engaged and review goes on (§ 380-10 G(2)(d))."""
    app = _lock(application)
    e = _account_entry(app, kind=AccountEntryKind.DEPOSIT, amount=amount, on=on, reference=reference,
                       memo="Consultant fee received", acting_user=acting_user)
    eng = current_engagement(app)
    if eng is not None and eng.state == ConsultantEngagement.State.FEE_REQUESTED:
        # eng.fee is the fee requested so far, additional requests included (§ 380-10 G(2)(d)).
        paid = sum((x.amount for x in app.account_entries.filter(kind=AccountEntryKind.DEPOSIT, on__gte=eng.notice_on)),
                   ZERO)
        if paid >= eng.fee:
            eng.state, eng.paid_on = ConsultantEngagement.State.ENGAGED, on
            eng.save(update_fields=["state", "paid_on"])
            if app.case.status == S.CONSULTANT_FEE_DUE:
                case_transition(case=app.case, to=S.UNDER_REVIEW, acting_user=acting_user, on=on,
                                why=f"Consultant fee ${fmt(eng.fee)} received; consultant review begins")
            else:  # an additional fee paid during review
                pay = clock_running(case=app.case, kind=wf.CONSULTANT_PAYMENT)
                if pay is not None:
                    clock_meet(clock=pay, on=on, reason="additional fee received", acting_user=acting_user)
    return e


@transaction.atomic
def consultant_additional_fee(*, application: PermitApplication, amount: Decimal, reason: str, on: date,
                              acting_user) -> ConsultantEngagement:
    """§ 380-10 G(2)(d): additional consultant fees when review needs more than anticipated; the
    10-business-day countdown runs again."""
    app = _lock(application)
    eng = current_engagement(app)
    if eng is None or eng.state != ConsultantEngagement.State.ENGAGED:
        raise ValueError(ERR_NO_ENGAGEMENT)
    amount = round_cents(Decimal(amount))
    if amount <= 0:
        raise PermitError(ERR_FEE_POSITIVE, field="amount")
    eng.fee += amount
    eng.state = ConsultantEngagement.State.FEE_REQUESTED
    eng.save(update_fields=["fee", "state"])
    event_record(case=app.case, kind="consultant.additional_fee", acting_user=acting_user, on=on,
                 why=f"Additional consultant fee ${fmt(amount)} requested: {reason}")
    p = clock_start(case=app.case, kind=wf.CONSULTANT_PAYMENT, label="Additional consultant fee payment",
                    citation="§ 380-10 G(2)(d)", start=on, length=PAYMENT_BUSINESS_DAYS, unit=Unit.BUSINESS,
                    acting_user=acting_user)
    _letter(app, tag="consultant_notice", title="Request for additional consultant fee", on=on,
            acting_user=acting_user, filename=f"{app.case.number}-additional-fee-{on}.pdf",
            subject=f"Application {app.case.number}: additional consultant fee",
            paragraphs=[f"The DPW Director requests an additional consultant fee of ${fmt_display(amount)}: {reason}",
                        f"Payment is due within 10 business days, by {p.state().due:%B %-d, %Y}."],
            citation="Ch. 380 § 380-10 G(2)(d).")
    return eng


@transaction.atomic
def consultant_appeal_file(*, application: PermitApplication, ground: str, statement: str, acting_user,
                           received_on: date | None = None) -> ConsultantAppeal:
    """§ 380-10 G(2)(e): a written appeal received within 10 days of the fee request. It stops the payment
    countdown (G(2)(d)) and extends the action clock by its duration (tolls, see workflow). Received today by the
    server's clock unless the Select Board's clerk records a paper appeal (cases.filing)."""
    received_on = filed_on(acting_user=acting_user, claimed=received_on, staff_perm=Perm.PERMIT_APPEAL_RECORD)
    if received_on > _today():
        raise PermitError(ERR_FUTURE_DATE, field="received_on")
    app = _lock(application)
    eng = current_engagement(app)
    if eng is None:
        raise ValueError(ERR_NO_ENGAGEMENT)
    if ground not in ConsultantAppeal.Ground.values:
        raise PermitError(ERR_APPEAL_GROUND, field="ground")
    window = clock_running(case=app.case, kind=wf.CONSULTANT_APPEAL_WINDOW)

    def check(_):
        due = window.state().due if window else None
        if due is None or received_on > due:
            raise TransitionError(ERR_APPEAL_LATE.format(due=due))
    case_transition(case=app.case, to=S.CONSULTANT_APPEAL, acting_user=acting_user, on=received_on, check=check,
                    why=f"Selection of {eng.name} appealed to the Select Board: {ConsultantAppeal.Ground(ground).label}")
    return ConsultantAppeal.objects.create(engagement=eng, received_on=received_on, ground=ground, statement=statement)


@transaction.atomic
def consultant_appeal_decide(*, application: PermitApplication, decided_on: date, outcome: str, note: str,
                             acting_user) -> ConsultantAppeal:
    """The Select Board's decision. Upheld: the payment countdown resumes the first business day after
    (§ 380-10 G(2)(d)). Disqualified: the consultant is out; review goes on and the Director may select another."""
    app = _lock(application)
    appeal = ConsultantAppeal.objects.filter(engagement__application=app, decided_on__isnull=True).order_by("-id").first()
    if appeal is None:
        raise ValueError(ERR_NO_OPEN_APPEAL)
    outcome = ConsultantAppeal.Outcome(outcome)
    to = S.CONSULTANT_FEE_DUE if outcome == ConsultantAppeal.Outcome.UPHELD else S.UNDER_REVIEW
    case_transition(case=app.case, to=to, acting_user=acting_user, on=decided_on,
                    why=f"Select Board: {outcome.label}" + (f". {note}" if note else ""))
    appeal.decided_on, appeal.outcome, appeal.decision_note = decided_on, outcome, note
    appeal.save(update_fields=["decided_on", "outcome", "decision_note"])
    if outcome == ConsultantAppeal.Outcome.DISQUALIFIED:
        eng = appeal.engagement
        eng.state = ConsultantEngagement.State.DISQUALIFIED
        eng.save(update_fields=["state"])
    return appeal


@transaction.atomic
def permit_deny_nonpayment(*, application: PermitApplication, acting_user, on: date | None = None):
    """§ 380-10 G(2)(d): the fee not paid within 10 business days (or refused) is cause to deny."""
    app = _lock(application)
    on = on or _today()
    pay = clock_running(case=app.case, kind=wf.CONSULTANT_PAYMENT)

    def check(_):
        if pay is None:
            raise TransitionError(ERR_FEE_PAID)
        st = pay.state()
        if st.due is None:
            raise TransitionError(ERR_PAYMENT_STOPPED)
        if on <= st.due:
            raise TransitionError(ERR_NOT_OVERDUE.format(due=st.due))
    case_transition(case=app.case, to=S.DENIED, acting_user=acting_user, on=on, check=check,
                    why="Denied: consultant fee not paid within 10 business days (§ 380-10 G(2)(d))")
    return _record_decision(app, kind=DecisionKind.DENY_NONPAYMENT, on=on, acting_user=acting_user,
                            findings="The consultant fee was not paid within 10 business days of the request; the "
                                     "Director lacks sufficient information to evaluate whether the project meets the "
                                     "performance standards.", standards=["§ 380-10 G(2)(d)"])


@transaction.atomic
def account_interest(*, application: PermitApplication, amount: Decimal, on: date, reference: str = "",
                     acting_user) -> AccountEntry:
    """Interest the Treasurer credits to the project's share of the special account (§ 380-10 G(2)(a), (f))."""
    app = _lock(application)
    return _account_entry(app, kind=AccountEntryKind.INTEREST, amount=amount, on=on, reference=reference,
                          memo="Interest credited", acting_user=acting_user)


def _withdrawn_in_window(app) -> bool:
    if app.case.status not in (S.WITHDRAWN, S.CLOSED):
        return False
    ev = app.case.events.filter(kind="status", to_status=S.WITHDRAWN).first()
    w = app.case.clocks.filter(kind=wf.CONSULTANT_WITHDRAWAL).order_by("-start").first()
    return bool(ev and w and w.state().due and ev.on <= w.state().due)


@transaction.atomic
def account_expenditure(*, application: PermitApplication, amount: Decimal, on: date, payee: str, memo: str,
                        reference: str = "", acting_user) -> AccountEntry:
    """An expenditure at the Director's direction, only for this project's consultant (§ 380-10 G(2)(a)),
    never beyond the balance, never after a withdrawal within five days of the notice (G(2)(c))."""
    app = _lock(application)
    if not app.consultants.filter(paid_on__isnull=False).exists():  # a consultant whose fee was received
        raise ValueError(ERR_EXPENDITURE_NO_ENGAGEMENT)
    if _withdrawn_in_window(app):
        raise ValueError(ERR_NO_CONSULTANT_COST)
    balance = account_balance_of(app)
    amount = round_cents(Decimal(amount))
    if amount > balance:
        raise PermitError(ERR_OVERDRAWN.format(balance=f"${fmt(balance)}", amount=f"${fmt(amount)}"), field="amount")
    return _account_entry(app, kind=AccountEntryKind.EXPENDITURE, amount=amount, on=on, payee=payee, memo=memo,
                          reference=reference, acting_user=acting_user)


# --- decision, close, refund ----------------------------------------------------------------------

STANDARDS = {
    "380-11B": "§ 380-11 B: general performance standards (Massachusetts Stormwater Management Standards, N and P "
               "optimization, LID)",
    "380-11C": "§ 380-11 C: erosion and sediment control design requirements",
    "380-11D": "§ 380-11 D: new development — 90 % TSS and 60 % TP removal, or 1 in. retention",
    "380-11E": "§ 380-11 E: redevelopment — 80 % TSS and 50 % TP removal, or 0.8 in. retention",
    "380-12": "§ 380-12: stormwater management plan contents",
    "380-13": "§ 380-13: erosion and sediment control plan",
    "380-14": "§ 380-14: operation and maintenance plan",
}


ERR_SHEET = ("Approved plan sheet {n}: give the sheet number and title, and the revision and date if any "
             "(number; title; revision; YYYY-MM-DD).")


def approved_sheets_parse(lines) -> list[dict]:
    """The plan sheets a permit approves, one per line "number; title; revision; date" (revision and date optional),
    as the permit lists them (issue 18). A date is YYYY-MM-DD and not later than today."""
    out = []
    for n, line in enumerate([x for x in (lines or []) if str(x).strip()], 1):
        parts = [p.strip() for p in str(line).split(";")] + ["", "", ""]
        number, title, revision, day = parts[0][:40], parts[1][:200], parts[2][:20], parts[3]
        if not number or not title:
            raise ValueError(ERR_SHEET.format(n=n))
        if day:
            try:
                on = date.fromisoformat(day)
            except ValueError:
                raise ValueError(ERR_SHEET.format(n=n)) from None
            if on > _today():
                raise ValueError(ERR_SHEET.format(n=n) + f" {on} is later than today.")
        out.append({"number": number, "title": title, "revision": revision, "date": day})
    return out


def _record_decision(app, *, kind, on, acting_user, findings, standards, conditions=(), ooc="", sheets=()):
    app.decision, app.decided_on, app.findings, app.standards_cited = kind, on, findings, list(standards)
    app.order_of_conditions = ooc
    app.decided_by = actor_or_none(acting_user)
    if kind in (DecisionKind.APPROVE, DecisionKind.APPROVE_WITH_CONDITIONS):
        app.issued_on = on
        app.approved_sheets = list(sheets)
    app.save(update_fields=["decision", "decided_on", "findings", "standards_cited", "order_of_conditions",
                            "issued_on", "approved_sheets", "decided_by"])
    for i, text in enumerate(conditions, 1):
        PermitCondition.objects.create(application=app, seq=i, text=text)
    title = "Stormwater management and land disturbance permit" if app.issued_on else "Decision"
    _keep_pdf(app, documents.decision_pdf(app), tag="decision", title=f"{title} ({DecisionKind(kind).label})",
              filename=f"{app.case.number}-decision-{on}.pdf", acting_user=acting_user)
    if app.issued_on:
        start_due = add_months(on, START_MONTHS)
        clock_start(case=app.case, kind=wf.PROJECT_START, label="Project start (two years from issuance)",
                    citation="§ 380-10 K", start=on, length=(start_due - on).days, acting_user=acting_user)
    return app


@transaction.atomic
def permit_decide(*, application: PermitApplication, kind: str, findings: str, standards: list[str], acting_user,
                  conditions: list[str] = (), order_of_conditions: str = "", on: date | None = None,
                  sheets: list[str] = ()):
    """§ 380-10 I(1): the Director's written action — approval, approval with conditions, or disapproval —
    citing the § 380-11 standards. An Order of Conditions may serve as the permit (§ 380-9 A)."""
    app = _lock(application)
    on = on or _today()
    kind = DecisionKind(kind)
    to = {DecisionKind.APPROVE: S.APPROVED, DecisionKind.APPROVE_WITH_CONDITIONS: S.APPROVED_WITH_CONDITIONS,
          DecisionKind.DISAPPROVE: S.DISAPPROVED}.get(kind)
    if to is None:
        raise ValueError("Denials have their own actions (incomplete, consultant fee unpaid).")
    conditions = [c.strip() for c in conditions if c.strip()]
    approved = approved_sheets_parse(sheets)

    def check(case):
        if not findings.strip():
            raise TransitionError(ERR_FINDINGS, field="findings")
        if not standards:
            raise TransitionError(ERR_STANDARDS, field="standards")
        if kind == DecisionKind.APPROVE_WITH_CONDITIONS and not conditions:
            raise TransitionError(ERR_CONDITIONS, field="conditions")
        if kind != DecisionKind.APPROVE_WITH_CONDITIONS and conditions:  # never dropped silently (issue 16)
            raise TransitionError(ERR_CONDITIONS_KIND.format(kind=kind.label.lower()), field="conditions")
        if Case.objects.filter(parent=case, kind=wf.WAIVER, closed_at__isnull=True).exists():
            raise TransitionError(ERR_WAIVERS_OPEN)
        if app.consultants.filter(state=ConsultantEngagement.State.FEE_REQUESTED).exists():
            raise TransitionError(ERR_CONSULTANT_UNPAID)
    case_transition(case=app.case, to=to, acting_user=acting_user, on=on, check=check, why=f"{kind.label}: {findings}",
                    data={"standards": list(standards)})
    return _record_decision(app, kind=kind, on=on, acting_user=acting_user, findings=findings,
                            standards=[STANDARDS.get(s, s) for s in standards],
                            conditions=conditions if kind == DecisionKind.APPROVE_WITH_CONDITIONS else (),
                            ooc=order_of_conditions, sheets=approved)


@transaction.atomic
def permit_close(*, application: PermitApplication, acting_user, on: date | None = None, why: str = ""):
    """Review and oversight complete: the 30-day refund clock starts if the 53G account holds a balance
    (§ 380-10 G(2)(f))."""
    app = _lock(application)
    on = on or _today()

    def check(_):
        # § 380-18: oversight ends with the certificate of completion; closing before it would end oversight of
        # work still under way and start the § 380-10 G(2)(f) refund clock (issue 18).
        project = getattr(app, "construction", None)  # the reverse one-to-one; None without a construction file
        if project is not None and project.certificate_on is None:
            raise TransitionError(ERR_CLOSE_CONSTRUCTION.format(case=project.case.number))
    case_transition(case=app.case, to=S.CLOSED, acting_user=acting_user, on=on, check=check,
                    why="Review and oversight complete" + (f": {why}" if why else ""))
    if account_balance_of(app) > 0:
        clock_start(case=app.case, kind=wf.REFUND, label="Refund of the special account balance",
                    citation="§ 380-10 G(2)(f)", start=on, length=REFUND_DAYS, acting_user=acting_user)
    return app


@transaction.atomic
def account_refund(*, application: PermitApplication, on: date, acting_user, payee: str = "", successor: bool = False,
                   reference: str = "") -> AccountEntry:
    """Return the balance with interest to the applicant or the documented successor in interest, and keep
    the final report of the account in the file (§ 380-10 G(2)(f))."""
    app = _lock(application)
    if app.case.status != S.CLOSED:
        raise ValueError(ERR_NOT_CLOSED)
    balance = account_balance_of(app)
    if balance <= 0:
        raise ValueError(ERR_NOTHING_TO_REFUND)
    if successor and not app.case.documents.filter(tag="successor_documentation").exists():
        raise PermitError(ERR_SUCCESSOR_DOCS, field="successor")
    payee = payee.strip() or app.owner_name
    if successor:
        CaseParty.objects.create(case=app.case, role=PartyRole.SUCCESSOR, name=payee)
    e = _account_entry(app, kind=AccountEntryKind.REFUND, amount=balance, on=on, payee=payee, reference=reference,
                       memo="Balance with interest returned" + (" to the successor in interest" if successor else ""),
                       acting_user=acting_user)
    app.refund_payee = payee
    app.save(update_fields=["refund_payee"])
    refund = clock_running(case=app.case, kind=wf.REFUND)
    if refund is not None:
        clock_meet(clock=refund, on=on, reason=f"refunded ${fmt(balance)} to {payee}", acting_user=acting_user)
    account_report(application=app, on=on, acting_user=acting_user)
    return e


@transaction.atomic
def account_report(*, application: PermitApplication, on: date, acting_user):
    """The final report of the special account, made available to the applicant (§ 380-10 G(2)(f))."""
    from .selectors import account_entries, account_of

    pdf = documents.account_report_pdf(application, entries=account_entries(application),
                                       summary=account_of(application), on=on)
    return _keep_pdf(application, pdf, tag="account_report", title="Special account report (MGL c.44 §53G)",
                     filename=f"{application.case.number}-53g-account-{on}.pdf", acting_user=acting_user)


# --- after approval -------------------------------------------------------------------------------

def _approved(app):
    if app.case.status not in (S.APPROVED, S.APPROVED_WITH_CONDITIONS):
        raise ValueError(ERR_NOT_APPROVED)


@transaction.atomic
def project_change_notify(*, application: PermitApplication, description: str, acting_user,
                          notified_on: date | None = None) -> ProjectChange:
    """§ 380-10 J: the permittee's written notice of a change before it occurs. Dated today by the server unless
    permit staff record a paper notice (cases.filing)."""
    notified_on = filed_on(acting_user=acting_user, claimed=notified_on, staff_perm=Perm.PERMIT_REVIEW)
    if notified_on > _today():
        raise PermitError(ERR_FUTURE_DATE, field="notified_on")
    app = _lock(application)
    _approved(app)
    ch = ProjectChange.objects.create(application=app, notified_on=notified_on, description=description)
    event_record(case=app.case, kind="project_change", acting_user=acting_user, on=notified_on,
                 why=f"Notice of project change: {description[:200]}")
    return ch


@transaction.atomic
def project_change_determine(*, change: ProjectChange, significant: bool, acting_user, interim_measures: str = "",
                             note: str = "", on: date | None = None) -> ProjectChange:
    """§ 380-10 J: a significant change needs an amended application with prior abutter notice (a new permit
    file linked to this one); interim measures may be required before the change is approved."""
    app = _lock(change.application)
    on = on or _today()
    change.significant, change.determined_on = significant, on
    change.interim_measures, change.note = interim_measures, note
    if significant:
        amended = permit_application_start(
            acting_user=acting_user, owner=app.owner, owner_name=app.owner_name, owner_address=app.owner_address,
            agent_name=app.agent_name, site_address=app.site_address, parcels=list(app.parcels.all()),
            description=f"Amended application ({app.case.number}): {change.description}",
            disturbance_sqft=app.disturbance_sqft, project_type=app.project_type,
            wetlands_jurisdiction=app.wetlands_jurisdiction, planning_board=app.planning_board,
            autocad_plans=app.autocad_plans)  # abutter notice is required again: no H(3) waiver carried over
        Case.objects.filter(pk=amended.case_id).update(parent=app.case, applicant=app.case.applicant)
        change.amended_case = amended.case
    change.save()
    event_record(case=app.case, kind="project_change", acting_user=acting_user, on=on,
                 why=("Significant change: amended application required" + (f" ({change.amended_case.number})"
                                                                              if change.amended_case else "")
                      if significant else "Change not significant") +
                 (f"; interim measures: {interim_measures}" if interim_measures else ""))
    return change


@transaction.atomic
def project_start_record(*, application: PermitApplication, started_on: date, acting_user):
    """§ 380-10 K: the project began (the two-year clock is met). Recorded only by the construction file's start
    (``construction.services.construction_start``), after its checks: the pre-construction meeting (§ 380-16 A),
    the signed plan on site (§ 380-16 B), the surety (§ 380-17 A) and the erosion-control inspection before the
    start (§ 380-16 C(4)(b)[1]). Called directly it is refused (issue 18: the applicant's "Record start" skipped
    them)."""
    app = _lock(application)
    _approved(app)
    project = getattr(app, "construction", None)  # the reverse one-to-one; None without a construction file
    if project is None:
        raise TransitionError(ERR_START_NO_FILE)
    if project.started_on != started_on:
        raise TransitionError(ERR_START_VIA_FILE.format(case=project.case.number))
    app.started_on = started_on
    app.save(update_fields=["started_on"])
    clock = clock_running(case=app.case, kind=wf.PROJECT_START)
    if clock is not None:
        clock_meet(clock=clock, on=started_on, reason="construction started", acting_user=acting_user)
    return app


@transaction.atomic
def project_start_extend(*, application: PermitApplication, days: int, reason: str, acting_user):
    """§ 380-10 K: the Director may extend the two years."""
    _approved(application)
    return clock_extend(case=application.case, kind=wf.PROJECT_START, days=days, reason=reason,
                        acting_user=acting_user)


# --- waivers (§ 380-8) -----------------------------------------------------------------------------

@transaction.atomic
def waiver_request(*, application: PermitApplication, requirement: str, justification: str, acting_user) -> Waiver:
    """§ 380-8 B: a written request with an explanation or documentation supporting it."""
    if not justification.strip():
        raise PermitError(ERR_WAIVER_JUSTIFY, field="justification")
    case = case_open(kind=wf.WAIVER, title=f"Waiver: {requirement[:200]}", acting_user=acting_user,
                     applicant=application.case.applicant, parent=application.case)
    w = Waiver.objects.create(case=case, application=application, requirement=requirement, justification=justification)
    event_record(case=application.case, kind="waiver", acting_user=acting_user,
                 why=f"Waiver requested ({case.number}): {requirement}")
    return w


@transaction.atomic
def waiver_public_comment(*, waiver: Waiver, from_on: date, note: str, acting_user) -> Waiver:
    """§ 380-8 C: the opportunity for public comment (§ 380-10 H)."""
    waiver.public_comment_from, waiver.public_comment_note = from_on, note
    waiver.save(update_fields=["public_comment_from", "public_comment_note"])
    event_record(case=waiver.case, kind="public_comment", acting_user=acting_user, on=from_on,
                 why=f"Public comment opened: {note}")
    return waiver


@transaction.atomic
def waiver_request_info(*, waiver: Waiver, info: str, acting_user, on: date | None = None) -> Waiver:
    """§ 380-8 D: more time or information; review continues until it is provided."""
    case_transition(case=waiver.case, to=wf.WaiverStatus.INFO_REQUESTED, acting_user=acting_user, on=on,
                    why=f"Information requested: {info}")
    waiver.info_requested = info
    waiver.save(update_fields=["info_requested"])
    return waiver


@transaction.atomic
def waiver_info_provided(*, waiver: Waiver, acting_user, on: date | None = None) -> Waiver:
    case_transition(case=waiver.case, to=wf.WaiverStatus.REQUESTED, acting_user=acting_user, on=on,
                    why="Requested information provided")
    return waiver


@transaction.atomic
def waiver_applicant_declines(*, waiver: Waiver, acting_user, reason: str, on: date | None = None) -> Waiver:
    """§ 380-8 D: the applicant objects to a continuance or fails to provide the information: denied."""
    case_transition(case=waiver.case, to=wf.WaiverStatus.DENIED, acting_user=acting_user, on=on,
                    why=f"Denied under § 380-8 D: {reason}")
    waiver.decision_note = f"Denied: {reason} (§ 380-8 D)"
    waiver.save(update_fields=["decision_note"])
    return waiver


@transaction.atomic
def waiver_decide(*, waiver: Waiver, grant: bool, note: str, acting_user, findings: tuple[bool, bool, bool] = (),
                  on: date | None = None) -> Waiver:
    """§ 380-8 A: granted only where allowed by law, in the public interest, and consistent with the purpose."""
    def check(_):
        if grant and waiver.public_comment_from is None:
            raise TransitionError(ERR_WAIVER_COMMENT)
        if grant and not (len(findings) == 3 and all(findings)):
            raise TransitionError(ERR_WAIVER_FINDINGS, field="a1")
    to = wf.WaiverStatus.GRANTED if grant else wf.WaiverStatus.DENIED
    case_transition(case=waiver.case, to=to, acting_user=acting_user, on=on, check=check,
                    why=("Granted" if grant else "Denied") + (f": {note}" if note else ""))
    waiver.decision_note = note
    waiver.save(update_fields=["decision_note"])
    event_record(case=waiver.application.case, kind="waiver", acting_user=acting_user,
                 why=f"Waiver {waiver.case.number} {'granted' if grant else 'denied'}: {waiver.requirement}")
    return waiver


# --- rule-making (§ 380-7) ------------------------------------------------------------------------

@transaction.atomic
def rule_hearing_create(*, title: str, summary: str, newspaper: str, advertised_on: date, hearing_at: datetime,
                        location: str, acting_user) -> RuleHearing:
    """§ 380-7: rules are adopted or amended after a public hearing advertised in a newspaper of general
    circulation at least seven days before the hearing."""
    hearing_day = timezone.localtime(hearing_at).date() if timezone.is_aware(hearing_at) else hearing_at.date()
    if not interval_is_at_least(advertised_on, hearing_day, HEARING_NOTICE_DAYS):
        raise PermitError(ERR_HEARING_NOTICE.format(adv=advertised_on, hearing=hearing_day), field="advertised_on")
    h = RuleHearing.objects.create(title=title, summary=summary, newspaper=newspaper, advertised_on=advertised_on,
                                   hearing_at=hearing_at, location=location,
                                   created_by=acting_user if acting_user and acting_user.is_authenticated else None)
    audit_record(actor=acting_user, action="permit.rule_hearing", obj=h, why=title,
                 data={"advertised_on": str(advertised_on), "hearing_on": str(hearing_day)})
    return h


# --- the permit's people (issue 18) ----------------------------------------------------------------------

LINKABLE_ROLES = {PartyRole.DESIGN_ENGINEER: "design engineer", PartyRole.CONTRACTOR: "contractor",
                  PartyRole.AGENT: "agent of the owner"}
ERR_PARTY_ROLE = "Link a person as the design engineer, the contractor or the owner's agent."
ERR_PARTY_WHO = "No active account has the username or e-mail address {who!r}: ask them to sign up first."
ERR_PARTY_TWICE = "{name} is already linked to this permit as its {role}."
ERR_PARTY_NOT_LINKED = "{name} is not linked to this permit as its {role}."
ERR_PARTIES_WHO = "Only the applicant or staff link people to this permit."


def _account(who: str):
    from stormwater.accounts.models import User

    who = (who or "").strip()
    qs = User.objects.filter(is_active=True)
    found = list(qs.filter(email__iexact=who)[:2]) if "@" in who else []
    if len(found) != 1:
        found = list(qs.filter(username__iexact=who)[:1])
    if not who or not found:
        raise PermitError(ERR_PARTY_WHO.format(who=who), field="who")
    return found[0]


@transaction.atomic
def permit_party_link(*, application: PermitApplication, who: str, role: str, acting_user) -> CaseParty:
    """Link a signed-up person (username or e-mail) to the permit as its design engineer, contractor or the owner's
    agent: they then see the permit, and a design engineer adds its plan documents and attaches reviews to it
    (``permits.selectors.permits_for_user``). The applicant or staff link them (the view checks who may)."""
    if role not in LINKABLE_ROLES:
        raise PermitError(ERR_PARTY_ROLE, field="role")
    app = _lock(application)
    user = _account(who)
    name = user.get_full_name() or user.username
    if app.case.parties.filter(user=user, role=role).exists():
        raise PermitError(ERR_PARTY_TWICE.format(name=name, role=LINKABLE_ROLES[role]), field="who")
    party = CaseParty.objects.create(case=app.case, role=role, name=name[:200], email=user.email, user=user)
    event_record(case=app.case, kind="party", acting_user=acting_user,
                 why=f"{name} linked as the {LINKABLE_ROLES[role]}", data={"user": user.pk, "role": role})
    audit_record(actor=acting_user, action="permit.party_link", obj=app, data={"user": user.pk, "role": role})
    return party


@transaction.atomic
def permit_party_unlink(*, application: PermitApplication, party_id: int, acting_user) -> None:
    """Remove a linked person (they no longer see the permit through it); the timeline keeps that they were."""
    app = _lock(application)
    party = app.case.parties.filter(pk=party_id, role__in=list(LINKABLE_ROLES), user__isnull=False).first()
    if party is None:
        raise ValueError("No such linked person on this permit.")
    event_record(case=app.case, kind="party", acting_user=acting_user,
                 why=f"{party.name} no longer linked as the {LINKABLE_ROLES[party.role]}",
                 data={"user": party.user_id, "role": party.role})
    audit_record(actor=acting_user, action="permit.party_unlink", obj=app, data={"user": party.user_id,
                                                                               "role": party.role})
    party.delete()
