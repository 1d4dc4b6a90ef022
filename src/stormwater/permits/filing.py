"""Filing a permit application and the Director's first steps (Ch. 380 § 380-10 B–F, I(2)): filing with the fees of
the schedule in force, the 42-day clock and the notices to the Town Clerk and the boards; the determination of
completeness, the missing items and the denial as administratively incomplete; requests for information; extensions
of the period for action; withdrawal.
"""
from __future__ import annotations

from datetime import date

from django.db import transaction

from stormwater.cases.models import Case
from stormwater.cases.services import (TransitionError, case_transition, clock_extend, clock_running, clock_start,
                                       event_record)
from stormwater.rules.clocks import length_to_date

from . import documents
from . import workflow as wf
from .acts import ERR_FUTURE_DATE, PermitError, _keep_pdf, _letter, _lock, _send_on_commit, _today
from .application import permit_fees_paid
from .decision import _record_decision
from .models import DecisionKind, FilingNotice, InformationRequest, NoticeRecipient, PermitApplication
from .selectors import checklist_missing, fees_due, filing_readiness
from .terms import ACTION_DAYS

S = wf.Status

ERR_NOT_OWNER = ("The permittee must be the owner of the site (§ 380-10 B(1)): parcel {pid} is owned by {owner}, "
                 "not {permittee}.")
ERR_INCOMPLETE_ITEMS = "The application is not complete (§ 380-10 D). Missing: {items}."
ERR_NOTHING_MISSING = "Every checklist item is in: the application cannot be found incomplete for missing items."
ERR_CURE_DATE = "The date for the missing items must be after the determination (§ 380-10 D)."
ERR_CURE_NOT_PASSED = ("The application may be denied as administratively incomplete only after the date set for the "
                       "missing items ({due}) has passed (§ 380-10 D).")
ERR_ITEMS_STILL_MISSING = "Items are still missing: {items}."
ERR_NO_INFO = "Say what information is requested (§ 380-10 E)."


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
def permit_file(*, application: PermitApplication, acting_user, on: date | None = None,
                notify: bool = True) -> PermitApplication:
    """File the package (§ 380-10 B): only complete and with its fees paid (issue 30: § 380-10 B(1), G(1), H(1);
    ``selectors.filing_readiness``), then the 42-day clock (§ 380-10 I(2)) and the notices to the Town Clerk and the
    boards (§ 380-10 F) — unless ``notify`` is false: a filing converted from the old office at go-live (issue 32,
    ``golive.permit_cases``), whose notices that office sent on the day."""
    app = _lock(application)
    on = on or _today()

    def check(_):
        permittee_check(app)
        # issue 30: a completed package with its fees paid (§ 380-10 B(1), G(1), H(1)); refused before any clock or
        # notice, naming each missing item and the unpaid fee
        refusal = filing_readiness(app, on).refusal()
        if refusal:
            raise TransitionError(refusal)
    case_transition(case=app.case, to=S.FILED, acting_user=acting_user, on=on, why="Application filed", check=check)
    app.fees, app.fees_total, app.fee_schedule = fees_due(app, on)  # as paid (recorded with the payment)
    Case.objects.filter(pk=app.case_id).update(filed_on=on)
    app.save(update_fields=["fee_schedule", "fees", "fees_total"])
    clock_start(case=app.case, kind=wf.ACTION, label="Final action on the application", citation="§ 380-10 I(2)",
                start=on, length=ACTION_DAYS, acting_user=acting_user)
    if notify:
        _filing_notices(app, on=on, acting_user=acting_user)
    return app


@transaction.atomic
def permit_fee_received_online(*, application: PermitApplication, online_payment, paid_on: date, acting_user) -> None:
    """Issue 30: the fee paid online reached the Town with the processor's settlement file (receivables/
    online_fees.py). The fee is recorded paid with the counter's act (``permit_fees_paid``: § 380-10 B(1)(e), G(1)),
    then the filing proceeds with the filing's act (``permit_file``, by the applicant who paid, on the day the
    processor paid): the 42-day clock (§ 380-10 I(2)) and the notices start here, not at the processor's return.
    A filing refused now (withdrawn meanwhile …) leaves the fee recorded and says why on the file's timeline: the
    applicant files from the page."""
    app = _lock(application)
    permit_fees_paid(application=app, paid_on=paid_on, receipt=f"online {online_payment.confirmation}"[:60],
                     acting_user=acting_user, online_payment=online_payment)
    if app.case.status != S.DRAFT:
        return
    try:
        with transaction.atomic():
            permit_file(application=app, acting_user=online_payment.started_by or acting_user, on=paid_on)
    except TransitionError as e:
        event_record(case=app.case, kind="fees", acting_user=acting_user, on=paid_on,
                     why=f"Fee paid online received; the application is not filed yet: {e}")


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
def permit_extend(*, application: PermitApplication, days: int, reason: str, acting_user, on: date | None = None):
    """An extension of the 42-day period with its reason (§ 380-10 I(2): the DPW requires additional time,
    or agreed with the applicant), on its day (default today)."""
    if days <= 0:
        raise PermitError("An extension adds at least one day.", field="days")
    if on is not None and on > _today():
        raise PermitError(ERR_FUTURE_DATE, field="on")
    return clock_extend(case=application.case, kind=wf.ACTION, days=days, reason=reason, acting_user=acting_user,
                        on=on)


@transaction.atomic
def permit_withdraw(*, application: PermitApplication, acting_user, why: str = "", on: date | None = None):
    app = _lock(application)
    case_transition(case=app.case, to=S.WITHDRAWN, acting_user=acting_user, on=on,
                    why="Withdrawn by the applicant" + (f": {why}" if why else ""))
    return app
