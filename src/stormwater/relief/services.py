"""State changes of relief cases (Ch. 295 Art. IV credits ¶A–¶E, billing ¶E, appeals ¶A–¶B).

Each service is keyword-only, takes ``acting_user``, runs in one transaction, moves status only
through ``cases.services.case_transition`` (the tables in ``workflow``), starts and meets the clocks
(``rules.deadlines`` via ``cases.Clock``), writes the PDF of each step into the case file and mails
it after commit where an address is on file. Refusals raise ReliefError naming the rule and the date.
"""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from stormwater.audit.services import actor_or_none as _user, audit_record
from stormwater.cases.models import Case, CaseParty, PartyRole
from stormwater.cases.services import (TransitionError, case_document_add, case_document_generate, case_open,
                                       case_transition, clock_meet, clock_running, clock_start, event_record)
from stormwater.parcels.selectors import parcel_classification
from stormwater.receivables.services import abatement_post
from stormwater.rules.calendar import add_months
from stormwater.rules.classes import ClassificationError
from stormwater.rules.deadlines import CLOCKS, case_clock_terms, deadline
from stormwater.rules.money import ZERO, fmt, fmt_display, fmt_ratio, round_cents
from stormwater.utility.models import Bill
from stormwater.formats import day as show_day, moment as show_moment

from . import documents
from . import workflow as wf
from .models import (Abatement, AbatementGround, AmountKind, Appeal, AppealOutcome, AppealSubject, CreditApplication,
                     CreditGrant, CreditPolicy, CreditType, Decision, Disposition)
from .selectors import (abatement_windows, bill_abatable, bill_abated, bill_owed, bill_paid, detail_of,
                        grants_in_force, policy_in_force)

C, A, AP, L = wf.CreditStatus, wf.AbatementStatus, wf.AppealStatus, wf.LienStatus


class ReliefError(ValueError):
    """A refusal; the message names the rule (and the date) that refuses; ``field`` names the input it concerns
    when there is one (a form shows it at that field: web/forms.py)."""

    def __init__(self, message: str = "", field: str | None = None):
        super().__init__(message)
        self.field = field


ERR_NO_POLICY = "No credit policy is in force on {on}: the Select Board's credit policy must be entered first (credits ¶A)."
ERR_TYPE_NOT_IN_FORCE = "“{name}” is not a credit of the policy in force on {on} ({policy})."
ERR_CLASS = "“{name}” is for {classes} property; parcel {pid} is {cls} (credit policy)."
ERR_ALREADY = "Parcel {pid} already has “{name}” in force ({number}); recertify it instead."
ERR_STATEMENT = "State how the property meets the criteria (credits ¶D)."
ERR_MISSING_DOCS = "The application is not complete (credits ¶D). Missing: {items}."
ERR_NOTHING_MISSING = "Say what is missing from the application."
ERR_PERCENT = "The credit granted must be more than 0% and less than the full credit of {full}% for a grant in part."
ERR_REASONS = "A written decision must give its reasons."
ERR_DECISION = "Choose the decision: granted in full, granted in part or denied."
ERR_ABATEMENT_LATE = ("An abatement must be applied for within 30 days of the bill's issue date (Ch. 295 Art. IV "
                      "billing ¶E): bill {bill} was issued {issued}; the last day was {due}.")
ERR_NOT_ISSUED = "Bill {bill} is not issued until {issued}."
ERR_NOT_PAID = ("An abatement may be applied for only after the bill is paid in full (Ch. 295 Art. IV billing ¶E): "
                "${owed} is still owed on bill {bill} (due {due}).")
ERR_GROUNDS = "Name at least one ground and state why the billing is more likely than not in error (billing ¶E)."
ERR_AMOUNT = "The amount must be more than $0 and at most ${most} (what was paid on the bill and not yet abated)."
ERR_OPEN_ABATEMENT = "Bill {bill} already has an abatement application pending ({number})."
ERR_APPEAL_LATE = ("An appeal must be filed within 30 days of the written decision of {decided} (Ch. 295 Art. IV "
                   "appeals ¶A): the last day was {due}.")
ERR_APPEAL_GROUNDS = "An appeal must be in writing and specify its grounds (Ch. 295 Art. IV appeals ¶A)."
ERR_NOT_APPEALABLE = ("Only a written decision denying an abatement or a credit, in whole or in part, may be "
                      "appealed (appeals ¶A): {number} is “{status}”.")
ERR_APPEAL_PENDING = "{number} already has an appeal ({appeal})."
ERR_HEARING_LATE = ("The hearing must be within 90 days of the filing of the appeal on {filed} (Ch. 295 Art. IV "
                    "appeals ¶A): the latest date is {due}.")
ERR_HEARING_BEFORE_FILING = "The hearing cannot be before the appeal was filed ({filed})."
ERR_NOTICE_TOO_LATE = ("Notice of a hearing on {hearing} had to be sent by {due}, no less than 10 days before "
                       "(appeals ¶A; rolled back to a business day): choose a later hearing date.")
ERR_NOTICE_FIRST = "The hearing notice must be sent before the hearing can be held (appeals ¶A)."
ERR_HEARING_NOT_YET = "The hearing is set for {hearing}: it cannot conclude before it is held."
ERR_REVERSE_SUM = ("A reversal of an abatement denial must specify the sum to be abated, more than $0 and not more "
                   "than the amounts paid (${most}) (appeals ¶A).")
ERR_REVERSE_CREDIT = "A reversal of a credit denial must specify the credit (more than 0%, at most {most}%)."
ERR_OUTCOME = "“{outcome}” is not a decision the Select Board can make on this case."
ERR_RELATED_ABATEMENT = ("The abatement named with a credit appeal must be on a bill of the same parcel, paid in "
                         "full (appeals ¶A).")
ERR_LIEN_ACCOUNT = "Commitment line {line} is not on the account of bill {bill}."
ERR_LIEN_AMOUNT = "The amount must be more than $0 and at most ${most} (what was committed to the tax bill)."
ERR_NOT_LAPSED = ("The recertification is due by {due}: it has not lapsed, so the credit may be revoked only for "
                  "noncompliance (credits ¶C).")
ERR_REVOKE_REASON = "A revocation must state the noncompliance or the lapse it rests on (credits ¶C)."
ERR_NO_RECERT = "This credit needs no recertification."
ERR_GRANT_NOT_IN_FORCE = "This credit is not in force (revoked on {revoked})."


def _today() -> date:
    return timezone.localdate()




def _start_clock(case: Case, kind: str, start: date, acting_user, *, hearing_date: date | None = None):
    rule = CLOCKS[kind]
    length, roll = case_clock_terms(kind, start=start, hearing_date=hearing_date)
    return clock_start(case=case, kind=kind, label=rule.label, citation=rule.citation, start=start, length=length,
                       roll=roll, acting_user=acting_user)


def _meet(case: Case, kind: str, on: date, reason: str, acting_user) -> None:
    c = clock_running(case=case, kind=kind)
    if c is not None:
        clock_meet(clock=c, on=on, reason=reason, acting_user=acting_user)


def _owner_party(case: Case) -> CaseParty | None:
    return case.parties.filter(role=PartyRole.OWNER).first()


def _send_on_commit(*, subject: str, body: str, to: str, filename: str, pdf: bytes, case: Case | None = None,
                    kind: str = "letter") -> None:
    """Email after commit, with a NoticeSent record of what went to whom and when (stormwater.notices)."""
    from stormwater.notices.services import notice_email

    notice_email(to=to, subject=subject, body=body, kind=kind, case=case, attachment=(filename, pdf, "application/pdf"))


def _notice(case: Case, *, tag: str, subject: str, paragraphs: list[str], on: date, acting_user,
            items: list[str] | None = None, citation: str = "", signer: str = "DPW Director",
            to_name: str | None = None, to_address: str | None = None, to_email: str | None = None,
            copy_to: str = "") -> object:
    """Render one letter of the case file to PDF, keep it, email it after commit where an address is on file."""
    party = _owner_party(case)
    to_name = to_name if to_name is not None else (party.name if party else "")
    to_address = to_address if to_address is not None else (party.mailing_address if party else "")
    email = to_email if to_email is not None else (party.email if party else "")
    pdf = documents.letter_pdf(case=case, subject=subject, to_name=to_name, to_address=to_address,
                               paragraphs=paragraphs, items=items or [], citation=citation, on=on, signer=signer,
                               copy_to=copy_to)
    filename = f"{case.number}-{tag}-{on:%Y%m%d}.pdf"
    doc = case_document_generate(case=case, content=pdf, filename=filename, tag=tag, title=subject,
                                 acting_user=acting_user)
    if email:
        _send_on_commit(subject=f"{case.number}: {subject}", body="\n\n".join(paragraphs), to=email,
                        filename=filename, pdf=pdf, case=case, kind=tag)
    event_record(case=case, kind="notice", acting_user=acting_user, on=on,
                 why=f"{subject} to {to_name}" + (f", emailed to {email}" if email else " (mailed; no email on file)"),
                 data={"document": doc.pk, "tag": tag})
    return doc


def _d(day: date) -> str:
    return f"{day:%B} {day.day}, {day.year}"


def _appeal_paragraph(decided_on: date) -> str:
    due = deadline("appeal_filing", decided_on).due
    return (f"If you are aggrieved by this decision you may appeal to the Select Board by filing a written appeal "
            f"stating its grounds with the Department of Public Works within 30 days of the date of this decision, "
            f"that is by {_d(due)} (Ch. 295 Art. IV appeals ¶A).")


def _open(kind: str, *, title: str, acting_user, owner, applicant, parent: Case | None = None,
          on: date) -> Case:
    case = case_open(kind=kind, title=title, acting_user=acting_user, applicant=applicant, parent=parent)
    case.filed_on = on
    case.save(update_fields=["filed_on"])
    if owner is not None:
        CaseParty.objects.create(case=case, role=PartyRole.OWNER, name=owner.name, mailing_address=owner.mailing_address,
                                 email=owner.email or (owner.user.email if owner.user_id else ""), user=owner.user)
    return case


def _check_on(on: date | None) -> date:
    on = on or _today()
    if on > _today():
        raise ReliefError(f"The date {on} is in the future.", field="on")
    return on


# --- credit policy ----------------------------------------------------------------------------------

@transaction.atomic
def credit_policy_adopt(*, label: str, approved_on: date, effective_from: date, max_combined_percent: Decimal,
                        types: list[dict], acting_user, is_demo: bool = False, notes: str = "") -> CreditPolicy:
    """Enter the credit policy the Select Board approved (credits ¶A), in force from ``effective_from``."""
    if not types:
        raise ReliefError("A credit policy needs at least one credit.")
    if not (Decimal(0) < Decimal(max_combined_percent) <= Decimal(100)):
        raise ReliefError("The combined cap must be more than 0% and at most 100%.")
    policy = CreditPolicy.objects.create(label=label, approved_on=approved_on, effective_from=effective_from,
                                         max_combined_percent=max_combined_percent, is_demo=is_demo, notes=notes,
                                         created_by=_user(acting_user))
    for t in types:
        if t["amount_kind"] == AmountKind.PERCENT and not (Decimal(0) < Decimal(t["amount"]) <= Decimal(t["max_percent"])):
            raise ReliefError(f"{t['code']}: the percent must be more than 0 and at most its cap.")
        CreditType.objects.create(policy=policy, **t)
    audit_record(actor=acting_user, action="credit_policy.adopt", obj=policy, why=label,
                 data={"effective_from": str(effective_from), "types": [t["code"] for t in types]})
    return policy


def credit_policy_load_demo(*, effective_from: date, acting_user) -> CreditPolicy:
    from .policy import DEMO_POLICY, DEMO_TYPES

    return credit_policy_adopt(label=DEMO_POLICY["label"], approved_on=effective_from, effective_from=effective_from,
                               max_combined_percent=DEMO_POLICY["max_combined_percent"], types=DEMO_TYPES,
                               acting_user=acting_user, is_demo=True,
                               notes="Demo values until the Select Board's credit policy is entered.")


def credit_full_percent(credit_type: CreditType, parcel, *, on: date) -> tuple[Decimal, str]:
    """The credit in full for the parcel [% of the fee] and how it was reached.

    The fee path takes a percent (``utility.selectors.credits_in_force``); a fixed-dollar credit is
    turned into the percent it is of the parcel's gross annual fee under the resolution in force.
    """
    if credit_type.amount_kind == AmountKind.PERCENT:
        return min(credit_type.amount, credit_type.max_percent), ""
    from stormwater.utility.selectors import parcel_fee

    pf = parcel_fee(parcel, as_of=on)
    if pf.fee is None or pf.fee.gross_fee <= 0:
        raise ReliefError(f"The fee of parcel {parcel.parcel_id} cannot be computed ({pf.problem}): a fixed credit "
                          "cannot be turned into a percent.")
    pct = (credit_type.amount * 100 / pf.fee.gross_fee).quantize(Decimal("0.001"))
    capped = min(pct, credit_type.max_percent)
    basis = (f"${fmt(credit_type.amount)} a year of a ${fmt(pf.fee.gross_fee)} annual fee = {fmt_ratio(pct)}%"
             + (f", capped at {fmt_ratio(capped)}%" if capped < pct else ""))
    return capped, basis


# --- credit applications ----------------------------------------------------------------------------

@transaction.atomic
def credit_apply(*, parcel, credit_type: CreditType, statement: str, acting_user, uploads=(),
                 on: date | None = None) -> CreditApplication:
    """An owner applies for a credit on the forms of the Department (credits ¶D)."""
    on = _check_on(on)
    policy = policy_in_force(on)
    if policy is None:
        raise ReliefError(ERR_NO_POLICY.format(on=on))
    if credit_type.policy_id != policy.pk:
        raise ReliefError(ERR_TYPE_NOT_IN_FORCE.format(name=credit_type.name, on=on, policy=policy))
    if not (statement or "").strip():
        raise ReliefError(ERR_STATEMENT)
    if credit_type.property_classes:
        try:
            cls = parcel_classification(parcel).property_class.value
        except ClassificationError as e:
            raise ReliefError(f"Parcel {parcel.parcel_id} cannot be classified: {e}") from None
        if cls not in credit_type.property_classes:
            raise ReliefError(ERR_CLASS.format(name=credit_type.name, classes=" or ".join(credit_type.property_classes),
                                               pid=parcel.parcel_id, cls=cls))
    existing = grants_in_force(on=on, parcel_pks=[parcel.pk]).filter(credit_type__code=credit_type.code).first()
    if existing:
        raise ReliefError(ERR_ALREADY.format(pid=parcel.parcel_id, name=credit_type.name,
                                             number=existing.application.case.number))
    full, _ = credit_full_percent(credit_type, parcel, on=on)
    case = _open(wf.CREDIT, title=f"{credit_type.name}: {parcel.address} ({parcel.parcel_id})",
                 acting_user=acting_user, owner=parcel.owner, applicant=_user(acting_user), on=on)
    app = CreditApplication.objects.create(case=case, parcel=parcel, credit_type=credit_type,
                                           statement=statement.strip(), requested_percent=full)
    for tag, upload in uploads:
        case_document_add(case=case, upload=upload, tag=tag, title=dict(credit_type.required_documents).get(tag, tag),
                          acting_user=acting_user)
    _notice(case, tag="receipt", subject="Credit application received", on=on, acting_user=acting_user,
            paragraphs=[f"The Department of Public Works received on {_d(on)} your application for the credit "
                        f"“{credit_type.name}” for {parcel.address} (parcel {parcel.parcel_id}).",
                        "The Department will determine whether the application is complete. Once it is accepted as "
                        "complete, the Director has 30 days to grant the credit in whole or in part or deny it "
                        "(Ch. 295 Art. IV credits ¶E)."],
            items=[label for _, label in credit_type.required_documents], citation="Ch. 295 Art. IV credits ¶D–¶E")
    audit_record(actor=acting_user, action="credit.apply", obj=app, why=case.title)
    return app


def credit_missing_documents(app: CreditApplication) -> list[str]:
    have = set(app.case.documents.filter(generated=False).values_list("tag", flat=True))
    return [label for tag, label in app.credit_type.required_documents if tag not in have]


@transaction.atomic
def credit_upload(*, application: CreditApplication, upload, tag: str, acting_user):
    label = dict(application.credit_type.required_documents).get(tag, "Supporting document")
    return case_document_add(case=application.case, upload=upload, tag=tag, title=label, acting_user=acting_user)


@transaction.atomic
def credit_determine_complete(*, application: CreditApplication, acting_user, on: date | None = None):
    """Accept the application as complete: the Director's 30 days start (credits ¶E)."""
    on = _check_on(on)
    app = application

    def check(case):
        missing = credit_missing_documents(app)
        if missing:
            raise TransitionError(ERR_MISSING_DOCS.format(items="; ".join(missing)))

    case_transition(case=app.case, to=C.UNDER_REVIEW, acting_user=acting_user, on=on, check=check,
                    why="Application complete (credits ¶D)")
    app.accepted_on = on
    app.save(update_fields=["accepted_on"])
    _start_clock(app.case, wf.CREDIT_DECISION, on, acting_user)
    due = deadline(wf.CREDIT_DECISION, on).due
    _notice(app.case, tag="complete", subject="Credit application accepted as complete", on=on,
            acting_user=acting_user, citation="Ch. 295 Art. IV credits ¶E",
            paragraphs=[f"Your application for the credit “{app.credit_type.name}” was accepted as complete on "
                        f"{_d(on)}.", f"The Director will grant the credit in whole or in part or deny it by {_d(due)} "
                                      "(30 days from acceptance, Ch. 295 Art. IV credits ¶E)."])
    return app


@transaction.atomic
def credit_determine_incomplete(*, application: CreditApplication, missing: str, acting_user,
                                on: date | None = None):
    on = _check_on(on)
    if not (missing or "").strip():
        raise ReliefError(ERR_NOTHING_MISSING, field="missing")
    case_transition(case=application.case, to=C.INCOMPLETE, acting_user=acting_user, on=on, why=missing)
    _notice(application.case, tag="incomplete", subject="Credit application incomplete", on=on,
            acting_user=acting_user, citation="Ch. 295 Art. IV credits ¶D",
            paragraphs=["Your credit application is not complete. Please provide the items below; the 30 days for "
                        "the Director's decision begin only when the complete application is accepted "
                        "(Ch. 295 Art. IV credits ¶E)."],
            items=[x.strip() for x in missing.splitlines() if x.strip()])
    return application


@transaction.atomic
def credit_resubmit(*, application: CreditApplication, acting_user, on: date | None = None):
    on = _check_on(on)
    case_transition(case=application.case, to=C.FILED, acting_user=acting_user, on=on,
                    why="Missing items submitted")
    return application


def _grant(app: CreditApplication, *, percent: Decimal, on: date, by: str, basis: str, acting_user) -> CreditGrant:
    t = app.credit_type
    g = CreditGrant.objects.create(
        application=app, parcel=app.parcel, credit_type=t, percent=percent, basis=basis, effective_from=on,
        expires_on=add_months(on, t.duration_months) if t.duration_months else None,
        recertify_by=add_months(on, t.recertify_months) if t.recertify_months else None, granted_by=by)
    if g.recertify_by:
        clock_start(case=app.case, kind=wf.RECERTIFICATION, label="Recertification of the credit due",
                    citation="Ch. 295 Art. IV credits ¶C; credit policy", start=on,
                    length=(g.recertify_by - on).days, roll=True, acting_user=acting_user)
    return g


def _decision(value: str) -> Decision:
    """The decision chosen; none is assumed (issue 16: a legal act has no preselected outcome)."""
    try:
        return Decision(value)
    except ValueError:
        raise ReliefError(ERR_DECISION, field="decision") from None


@transaction.atomic
def credit_decide(*, application: CreditApplication, decision: str, reasons: str, acting_user,
                  percent: Decimal | None = None, on: date | None = None) -> CreditApplication:
    """The Director grants the credit in whole or in part or denies it, in writing (credits ¶E)."""
    on = _check_on(on)
    app = CreditApplication.objects.select_for_update().select_related("credit_type", "parcel", "case").get(
        pk=application.pk)
    decision = _decision(decision)
    full, basis = credit_full_percent(app.credit_type, app.parcel, on=on)
    if decision == Decision.GRANT_PART:
        percent = Decimal(percent) if percent is not None else None
        if percent is None or not (Decimal(0) < percent < full):
            raise ReliefError(ERR_PERCENT.format(full=fmt_ratio(full)), field="percent")
    elif decision == Decision.GRANT:
        percent = full
    else:
        percent = None
    if decision != Decision.GRANT and not (reasons or "").strip():
        raise ReliefError(ERR_REASONS, field="reasons")
    to = {Decision.GRANT: C.GRANTED, Decision.GRANT_PART: C.GRANTED_PART, Decision.DENY: C.DENIED}[decision]
    case_transition(case=app.case, to=to, acting_user=acting_user, on=on, why=reasons.strip() or decision.label,
                    data={"percent": str(percent) if percent is not None else None})
    app.decision, app.decided_on, app.granted_percent, app.reasons = decision, on, percent, reasons.strip()
    app.save(update_fields=["decision", "decided_on", "granted_percent", "reasons"])
    paras = [f"Application for the credit “{app.credit_type.name}” for {app.parcel.address} (parcel "
             f"{app.parcel.parcel_id}), accepted as complete on {_d(app.accepted_on)}."]
    if percent is not None:
        g = _grant(app, percent=percent, on=on, by="director", basis=basis, acting_user=acting_user)
        paras.append(f"The credit is GRANTED {'IN FULL' if decision == Decision.GRANT else 'IN PART'}: "
                     f"{fmt_ratio(percent)}% of the stormwater fee" + (f" ({basis})" if basis else "") +
                     f", applied to every bill issued from {_d(on)} on (credits ¶E)"
                     + (f", until {_d(g.expires_on)}" if g.expires_on else "") + ".")
        paras.append("The credit is conditioned on continuing compliance with the Town's design and performance "
                     "standards and the continued operation and maintenance of what it is based on; the Department "
                     "may revoke it for noncompliance (credits ¶C)."
                     + (f" Recertification is due by {_d(g.recertify_by)}." if g.recertify_by else ""))
    else:
        paras.append("The credit is DENIED.")
    if reasons.strip():
        paras.append(f"Reasons: {reasons.strip()}")
    if decision != Decision.GRANT:
        paras.append(_appeal_paragraph(on))
        _start_clock(app.case, wf.APPEAL_FILING, on, acting_user)
    _notice(app.case, tag="decision", subject=f"Decision on your credit application: {Decision(decision).label}",
            on=on, acting_user=acting_user, paragraphs=paras, citation="Ch. 295 Art. IV credits ¶C, ¶E; appeals ¶A")
    audit_record(actor=acting_user, action="credit.decide", obj=app, why=reasons,
                 data={"decision": decision, "percent": str(percent) if percent is not None else None})
    return app


@transaction.atomic
def credit_recertify(*, grant: CreditGrant, acting_user, on: date | None = None, note: str = "") -> CreditGrant:
    """The owner's recertification was received and accepted: the next one is due one interval later."""
    on = _check_on(on)
    g = CreditGrant.objects.select_for_update().select_related("credit_type", "application__case").get(pk=grant.pk)
    if g.revoked_on:
        raise ReliefError(ERR_GRANT_NOT_IN_FORCE.format(revoked=g.revoked_on))
    if not g.credit_type.recertify_months:
        raise ReliefError(ERR_NO_RECERT)
    case = g.application.case
    _meet(case, wf.RECERTIFICATION, on, "recertified", acting_user)
    g.recertify_by = add_months(on, g.credit_type.recertify_months)
    if g.expires_on and g.credit_type.duration_months:
        g.expires_on = add_months(on, g.credit_type.duration_months)
    g.save(update_fields=["recertify_by", "expires_on"])
    clock_start(case=case, kind=wf.RECERTIFICATION, label="Recertification of the credit due",
                citation="Ch. 295 Art. IV credits ¶C; credit policy", start=on, length=(g.recertify_by - on).days,
                roll=True, acting_user=acting_user)
    _notice(case, tag="recertified", subject="Credit recertified", on=on, acting_user=acting_user,
            citation="Ch. 295 Art. IV credits ¶C",
            paragraphs=[f"Your recertification of the credit “{g.credit_type.name}” was accepted on {_d(on)}"
                        + (f" ({note})" if note else "") + ".",
                        f"The next recertification is due by {_d(g.recertify_by)}."])
    audit_record(actor=acting_user, action="credit.recertify", obj=g, why=note)
    return g


@transaction.atomic
def credit_revoke(*, grant: CreditGrant, reason: str, lapsed: bool, acting_user,
                  on: date | None = None) -> CreditGrant:
    """Revoke a credit, with notice, for lapsed recertification or noncompliance (credits ¶C). The credit
    is not in force from ``on``: the fee returns in full from the next bill issued."""
    on = _check_on(on)
    g = CreditGrant.objects.select_for_update().select_related("credit_type", "application__case", "parcel").get(
        pk=grant.pk)
    if g.revoked_on:
        raise ReliefError(ERR_GRANT_NOT_IN_FORCE.format(revoked=g.revoked_on))
    if not (reason or "").strip():
        raise ReliefError(ERR_REVOKE_REASON, field="reason")
    if lapsed and (g.recertify_by is None or on <= g.recertify_by):
        raise ReliefError(ERR_NOT_LAPSED.format(due=g.recertify_by), field="lapsed")
    case = g.application.case
    why = ("Recertification lapsed (due " + str(g.recertify_by) + "): " if lapsed else "Noncompliance: ") + reason.strip()
    case_transition(case=case, to=C.REVOKED, acting_user=acting_user, on=on, why=why)
    g.revoked_on, g.revoke_reason = on, why
    g.save(update_fields=["revoked_on", "revoke_reason"])
    _notice(case, tag="revocation", subject="Notice of revocation of your stormwater credit", on=on,
            acting_user=acting_user, citation="Ch. 295 Art. IV credits ¶C; appeals ¶A",
            paragraphs=[f"The credit “{g.credit_type.name}” ({fmt_ratio(g.percent)}%) on {g.parcel.address} (parcel "
                        f"{g.parcel.parcel_id}) is REVOKED as of {_d(on)}.",
                        f"Reason: {why}.",
                        "A credit is conditioned on continuing compliance with the Town's design and performance "
                        "standards and the credit policy (Ch. 295 Art. IV credits ¶C). The stormwater fee is charged "
                        "without this credit from the next bill issued.",
                        "You may apply again for the credit when the property complies."])
    audit_record(actor=acting_user, action="credit.revoke", obj=g, why=why)
    return g


@transaction.atomic
def relief_withdraw(*, case: Case, acting_user, why: str = "", on: date | None = None) -> Case:
    on = _check_on(on)
    return case_transition(case=case, to="withdrawn", acting_user=acting_user, on=on, why=why or "Withdrawn")


# --- abatements (billing ¶E) --------------------------------------------------------------------------

def abatement_filing_check(bill: Bill, *, on: date) -> None:
    """Refuse a filing outside the 30 days from the bill's issue date, or before the bill is paid in full,
    naming the date (billing ¶E). Each installment mailed is a bill issued: its own 30 days."""
    windows = [(i, d) for i, d in abatement_windows(bill) if i <= on]
    if not windows:
        raise ReliefError(ERR_NOT_ISSUED.format(bill=bill.number, issued=min(i for i, _ in abatement_windows(bill))))
    if not any(on <= d for _, d in windows):
        issued, due = windows[-1]
        raise ReliefError(ERR_ABATEMENT_LATE.format(bill=bill.number, issued=issued, due=due))
    owed = bill_owed(bill, as_of=on)
    if owed > 0:
        due = max(i.due_date for i in bill.installments.all() if i.issue_date <= on)
        raise ReliefError(ERR_NOT_PAID.format(owed=fmt_display(owed), bill=bill.number, due=due))


@transaction.atomic
def abatement_apply(*, bill: Bill, grounds: list[str], statement: str, amount_requested: Decimal, disposition: str,
                    acting_user, uploads=(), on: date | None = None) -> Abatement:
    """An owner applies for an abatement of a paid bill within 30 days of its issue (billing ¶E)."""
    on = _check_on(on)
    abatement_filing_check(bill, on=on)
    grounds = [g for g in grounds if g in AbatementGround.values]
    if not grounds or not (statement or "").strip():
        raise ReliefError(ERR_GROUNDS)
    most = bill_abatable(bill)
    amount = round_cents(Decimal(amount_requested))
    if not (ZERO < amount <= most):
        raise ReliefError(ERR_AMOUNT.format(most=fmt_display(most)))
    pending = Abatement.objects.filter(bill=bill, case__status=A.FILED).select_related("case").first()
    if pending:
        raise ReliefError(ERR_OPEN_ABATEMENT.format(bill=bill.number, number=pending.case.number))
    owner = bill.account.unit.owner if bill.account.unit_id else bill.parcel.owner
    case = _open(wf.ABATEMENT, title=f"Abatement of bill {bill.number} ({bill.parcel.address})",
                 acting_user=acting_user, owner=owner, applicant=_user(acting_user), on=on)
    ab = Abatement.objects.create(case=case, bill=bill, grounds=grounds, statement=statement.strip(),
                                  amount_requested=amount, disposition=Disposition(disposition))
    for tag, upload in uploads:
        case_document_add(case=case, upload=upload, tag=tag or "evidence", title="Evidence", acting_user=acting_user)
    _start_clock(case, wf.ABATEMENT_DECISION, on, acting_user)
    due = deadline(wf.ABATEMENT_DECISION, on).due
    _notice(case, tag="receipt", subject="Abatement application received", on=on, acting_user=acting_user,
            citation="Ch. 295 Art. IV billing ¶E",
            paragraphs=[f"The Department of Public Works received on {_d(on)} your application to abate "
                        f"${fmt_display(amount)} of bill {bill.number} (issued {_d(bill.issue_date)}, paid in full).",
                        "Grounds: " + "; ".join(AbatementGround(g).label for g in grounds) + ".",
                        f"The Department will deny the abatement, grant it in full or grant it in part in a written "
                        f"decision by {_d(due)} (60 days, Ch. 295 Art. IV billing ¶E). If granted, the amount will be "
                        f"{'refunded to you' if disposition == Disposition.REFUND else 'credited to your account'}, "
                        "as you chose."])
    audit_record(actor=acting_user, action="abatement.apply", obj=ab,
                 data={"bill": bill.number, "amount": fmt(amount), "on": str(on)})
    return ab


@transaction.atomic
def abatement_decide(*, abatement: Abatement, decision: str, reasons: str, acting_user,
                     amount: Decimal | None = None, on: date | None = None) -> Abatement:
    """The Department's written decision (billing ¶E): deny, grant in full, or grant in part. A grant is
    posted to the ledger against the bill (``receivables.services.abatement_post``), refunded or credited
    as the owner chose."""
    on = _check_on(on)
    ab = Abatement.objects.select_for_update().select_related("bill", "case").get(pk=abatement.pk)
    if ab.case.status != A.FILED:  # decided already, by the Department or the Select Board (issue 17)
        raise ReliefError(f"Abatement {ab.case.number} was already decided ({ab.case.status_label}"
                          + (f", ${fmt_display(ab.amount_granted)} abated" if ab.amount_granted else "")
                          + "): nothing is decided or posted again.")
    decision = _decision(decision)
    most = min(ab.amount_requested, bill_abatable(ab.bill))
    if decision == Decision.GRANT:
        amount = most
    elif decision == Decision.GRANT_PART:
        amount = round_cents(Decimal(amount)) if amount is not None else None
        if amount is None or not (ZERO < amount < ab.amount_requested) or amount > most:
            raise ReliefError(f"A grant in part must be more than $0 and less than the ${fmt_display(ab.amount_requested)} "
                              f"requested (at most ${fmt_display(most)}).", field="amount")
    else:
        amount = None
    if decision != Decision.GRANT and not (reasons or "").strip():
        raise ReliefError(ERR_REASONS, field="reasons")
    to = {Decision.GRANT: A.GRANTED, Decision.GRANT_PART: A.GRANTED_PART, Decision.DENY: A.DENIED}[decision]
    case_transition(case=ab.case, to=to, acting_user=acting_user, on=on, why=reasons.strip() or decision.label,
                    data={"amount": fmt(amount) if amount is not None else None})
    ab.decision, ab.decided_on, ab.amount_granted, ab.reasons = decision, on, amount, reasons.strip()
    ab.save(update_fields=["decision", "decided_on", "amount_granted", "reasons"])
    paras = [f"Application to abate ${fmt_display(ab.amount_requested)} of bill {ab.bill.number} (issued "
             f"{_d(ab.bill.issue_date)}), filed {_d(ab.case.filed_on)}."]
    if amount is not None:
        abatement_post(bill=ab.bill, amount=amount, on=on, disposition=ab.disposition, acting_user=acting_user,
                       memo=f"Abatement {ab.case.number} ({decision.label})")
        paras.append(f"The abatement is {decision.label.upper()}: ${fmt_display(amount)} is abated and "
                     + ("will be refunded to you." if ab.disposition == Disposition.REFUND
                        else "is credited to your account against your next bill."))
    else:
        paras.append("The abatement is DENIED.")
    if reasons.strip():
        paras.append(f"Reasons: {reasons.strip()}")
    if decision != Decision.GRANT:
        paras.append(_appeal_paragraph(on))
        _start_clock(ab.case, wf.APPEAL_FILING, on, acting_user)
    _notice(ab.case, tag="decision", subject=f"Decision on your abatement application: {decision.label}", on=on,
            acting_user=acting_user, paragraphs=paras, citation="Ch. 295 Art. IV billing ¶E; appeals ¶A")
    audit_record(actor=acting_user, action="abatement.decide", obj=ab, why=reasons,
                 data={"decision": decision, "amount": fmt(amount) if amount is not None else None})
    return ab


# --- appeals to the Select Board (appeals ¶A) and §16E lien abatements (appeals ¶B) ---------------------

@transaction.atomic
def appeal_file(*, decided_case: Case, grounds: str, acting_user, on: date | None = None,
                related_abatement: Abatement | None = None) -> Appeal:
    """Appeal a written denial (in whole or in part) of an abatement or a credit within 30 days of the
    decision, in writing, specifying the grounds (appeals ¶A). The 90 days to the hearing start."""
    on = _check_on(on)
    decided_case = Case.objects.select_for_update().get(pk=decided_case.pk)
    d = detail_of(decided_case)
    appealable = {wf.ABATEMENT: (A.DENIED, A.GRANTED_PART), wf.CREDIT: (C.DENIED, C.GRANTED_PART)}
    if decided_case.status not in appealable.get(decided_case.kind, ()):
        raise ReliefError(ERR_NOT_APPEALABLE.format(number=decided_case.number, status=decided_case.status_label))
    due = deadline("appeal_filing", d.decided_on).due
    if on > due:
        raise ReliefError(ERR_APPEAL_LATE.format(decided=d.decided_on, due=due))
    if not (grounds or "").strip():
        raise ReliefError(ERR_APPEAL_GROUNDS, field="grounds")
    prior = Appeal.objects.filter(case__parent=decided_case).exclude(case__status=AP.WITHDRAWN).select_related("case")
    if prior.exists():
        raise ReliefError(ERR_APPEAL_PENDING.format(number=decided_case.number, appeal=prior.first().case.number))
    subject = AppealSubject.ABATEMENT if decided_case.kind == wf.ABATEMENT else AppealSubject.CREDIT
    if related_abatement is not None:
        rb = related_abatement.bill
        if subject != AppealSubject.CREDIT or rb.parcel_id != d.parcel_id or bill_owed(rb, as_of=on) > 0:
            raise ReliefError(ERR_RELATED_ABATEMENT, field="related_abatement")
    party = _owner_party(decided_case)
    case = case_open(kind=wf.APPEAL, title=f"Appeal of {decided_case.number}: {decided_case.title}",
                     acting_user=acting_user, applicant=_user(acting_user) or decided_case.applicant,
                     parent=decided_case)
    case.filed_on = on
    case.save(update_fields=["filed_on"])
    if party:
        CaseParty.objects.create(case=case, role=PartyRole.OWNER, name=party.name,
                                 mailing_address=party.mailing_address, email=party.email, user=party.user)
    ap = Appeal.objects.create(case=case, subject=subject, grounds=grounds.strip(), decision_date=d.decided_on,
                               related_abatement=related_abatement,
                               bill=d.bill if subject == AppealSubject.ABATEMENT else None)
    _meet(decided_case, wf.APPEAL_FILING, on, f"appealed ({case.number})", acting_user)
    event_record(case=decided_case, kind="appeal", acting_user=acting_user, on=on,
                 why=f"Appealed to the Select Board: {case.number}", data={"appeal": case.number})
    _start_clock(case, wf.HEARING, on, acting_user)
    _notice(case, tag="receipt", subject="Appeal to the Select Board received", on=on, acting_user=acting_user,
            citation="Ch. 295 Art. IV appeals ¶A",
            paragraphs=[f"The Department of Public Works received on {_d(on)} your appeal of its written decision of "
                        f"{_d(d.decided_on)} ({decided_case.number}).", f"Grounds: {grounds.strip()}",
                        "The Department transmits the record of the decision to the Select Board, which will hold a "
                        f"hearing no later than {_d(deadline(wf.HEARING, on).due)} (within 90 days of the filing) and "
                        "send you notice of its place, date and time at least 10 days before."])
    audit_record(actor=acting_user, action="appeal.file", obj=ap, why=grounds, data={"of": decided_case.number})
    return ap


@transaction.atomic
def lien_abatement_apply(*, bill: Bill, commitment_line, grounds: str, amount_requested: Decimal, acting_user,
                         assessors_copy_on: date | None = None, uploads=(), on: date | None = None) -> Appeal:
    """An abatement of charges committed to the tax bill (MGL c.83 §16A–§16F): filed with the Department
    with a copy to the Board of Assessors, in the form of a notice of appeal, heard by the Select Board on
    the appeal's time limits (appeals ¶B)."""
    on = _check_on(on)
    if commitment_line.account_id != bill.account_id:
        raise ReliefError(ERR_LIEN_ACCOUNT.format(line=commitment_line.pk, bill=bill.number))
    if not (grounds or "").strip():
        raise ReliefError(ERR_APPEAL_GROUNDS, field="grounds")
    prior = sum((a.amount_abated or ZERO for a in Appeal.objects.filter(commitment_line=commitment_line)), ZERO)
    most = commitment_line.total - prior
    amount = round_cents(Decimal(amount_requested))
    if not (ZERO < amount <= most):
        raise ReliefError(ERR_LIEN_AMOUNT.format(most=fmt_display(most)))
    owner = bill.account.unit.owner if bill.account.unit_id else bill.parcel.owner
    case = _open(wf.LIEN, title=f"§16E abatement of committed charges, bill {bill.number} ({bill.parcel.address})",
                 acting_user=acting_user, owner=owner, applicant=_user(acting_user), on=on)
    ap = Appeal.objects.create(case=case, subject=AppealSubject.LIEN, grounds=grounds.strip(), bill=bill,
                               commitment_line=commitment_line, amount_requested=amount,
                               assessors_copy_on=assessors_copy_on or on)
    for tag, upload in uploads:
        case_document_add(case=case, upload=upload, tag=tag or "evidence", title="Evidence", acting_user=acting_user)
    _start_clock(case, wf.HEARING, on, acting_user)
    paras = [f"Application received {_d(on)} to abate ${fmt_display(amount)} of stormwater charges on account "
             f"{bill.account.number} committed to the FY{commitment_line.commitment.tax_fiscal_year} tax bill "
             f"(committed {_d(commitment_line.commitment.committed_on)}, ${fmt_display(commitment_line.total)}).",
             f"Grounds: {grounds.strip()}",
             f"The Select Board will hold a hearing no later than {_d(deadline(wf.HEARING, on).due)} (within 90 days) "
             "with notice at least 10 days before, and decide in writing within 30 days of the hearing "
             "(Ch. 295 Art. IV appeals ¶A–¶B; MGL c.83 §16E)."]
    _notice(case, tag="receipt", subject="§16E abatement application received", on=on, acting_user=acting_user,
            paragraphs=paras, citation="Ch. 295 Art. IV appeals ¶B; MGL c.83 §16E")
    _notice(case, tag="assessors_copy", subject="Copy to the Board of Assessors: §16E abatement application", on=on,
            acting_user=acting_user, paragraphs=paras, citation="Ch. 295 Art. IV appeals ¶B",
            to_name="Board of Assessors", to_address="Longmeadow Town Hall\n20 Williams Street\nLongmeadow, MA 01106",
            to_email="")
    audit_record(actor=acting_user, action="lien_abatement.apply", obj=ap,
                 data={"bill": bill.number, "line": commitment_line.pk, "amount": fmt(amount)})
    return ap


def _record_index(case: Case) -> list[str]:
    items = [f"{show_day(d.uploaded_at)} {d.title} ({d.original_name})" for d in case.documents.all()]
    items += [f"{show_day(e.on)} {e.kind}: {e.why or e.to_status}" for e in case.events.filter(kind="status")]
    return items


@transaction.atomic
def appeal_transmit_record(*, appeal: Appeal, acting_user, on: date | None = None) -> Appeal:
    """Forthwith on filing, the Department transmits to the Select Board every document of the record on
    which the decision was made (appeals ¶A)."""
    on = _check_on(on)
    ap = Appeal.objects.select_for_update().select_related("case").get(pk=appeal.pk)
    case_transition(case=ap.case, to=AP.RECORD_TRANSMITTED, acting_user=acting_user, on=on,
                    why="Record transmitted to the Select Board (appeals ¶A)")
    ap.record_transmitted_on = on
    ap.save(update_fields=["record_transmitted_on"])
    source = ap.case.parent or ap.case
    _notice(ap.case, tag="transmittal", subject="Transmittal of the record to the Select Board", on=on,
            acting_user=acting_user, to_name="Select Board", to_address="Longmeadow Town Hall", to_email="",
            citation="Ch. 295 Art. IV appeals ¶A",
            paragraphs=[f"Appeal {ap.case.number} ({ap.get_subject_display()}) was filed {_d(ap.case.filed_on)}. "
                        f"The record on which the decision was made ({source.number}) is transmitted herewith.",
                        f"Grounds of the appeal: {ap.grounds}",
                        f"The hearing must be held by {_d(deadline(wf.HEARING, ap.case.filed_on).due)}."],
            items=_record_index(source))
    return ap


@transaction.atomic
def appeal_schedule_hearing(*, appeal: Appeal, hearing_at: datetime, place: str, acting_user,
                            on: date | None = None, send_notice: bool = True) -> Appeal:
    """The Select Board sets the hearing within 90 days of the filing, with notice to the owner no less than
    10 days before (appeals ¶A). Setting it again (a continuance) sends a new notice."""
    on = _check_on(on)
    ap = Appeal.objects.select_for_update().select_related("case").get(pk=appeal.pk)
    day = timezone.localtime(hearing_at).date() if timezone.is_aware(hearing_at) else hearing_at.date()
    filed = ap.case.filed_on
    latest = deadline(wf.HEARING, filed).due
    if day < filed:
        raise ReliefError(ERR_HEARING_BEFORE_FILING.format(filed=filed), field="hearing_at")
    if day > latest:
        raise ReliefError(ERR_HEARING_LATE.format(filed=filed, due=latest), field="hearing_at")
    notice_by = deadline(wf.NOTICE, day).due
    if notice_by < on:
        raise ReliefError(ERR_NOTICE_TOO_LATE.format(hearing=day, due=notice_by), field="hearing_at")
    if not (place or "").strip():
        raise ReliefError("Give the place of the hearing (appeals ¶A).", field="place")
    if ap.case.status != AP.HEARING_SCHEDULED:
        case_transition(case=ap.case, to=AP.HEARING_SCHEDULED, acting_user=acting_user, on=on,
                        why=f"Hearing set for {show_moment(hearing_at)} at {place}")
    else:
        event_record(case=ap.case, kind="hearing.reset", acting_user=acting_user, on=on,
                     why=f"Hearing set again for {show_moment(hearing_at)} at {place}")
    ap.hearing_at, ap.hearing_place, ap.notice_sent_on = hearing_at, place.strip(), None
    ap.save(update_fields=["hearing_at", "hearing_place", "notice_sent_on"])
    _start_clock(ap.case, wf.NOTICE, on, acting_user, hearing_date=day)
    if send_notice:
        appeal_send_notice(appeal=ap, acting_user=acting_user, on=on)
    return ap


@transaction.atomic
def appeal_send_notice(*, appeal: Appeal, acting_user, on: date | None = None) -> Appeal:
    """Notice setting forth the place, date and time of the hearing, sent no less than 10 days before."""
    on = _check_on(on)
    ap = Appeal.objects.select_for_update().select_related("case").get(pk=appeal.pk)
    if ap.hearing_at is None:
        raise ReliefError("Set the hearing first.")
    local = timezone.localtime(ap.hearing_at) if timezone.is_aware(ap.hearing_at) else ap.hearing_at
    notice_by = deadline(wf.NOTICE, local.date()).due
    if on > notice_by:
        raise ReliefError(ERR_NOTICE_TOO_LATE.format(hearing=local.date(), due=notice_by))
    ap.notice_sent_on = on
    ap.save(update_fields=["notice_sent_on"])
    _meet(ap.case, wf.NOTICE, on, "notice sent", acting_user)
    what = ("your appeal" if ap.subject != AppealSubject.LIEN else "your application for abatement under MGL c.83 §16E")
    _notice(ap.case, tag="hearing_notice", subject="Notice of hearing before the Select Board", on=on,
            acting_user=acting_user, signer="Clerk to the Select Board", citation="Ch. 295 Art. IV appeals ¶A",
            paragraphs=[f"The Select Board will hear {what} ({ap.case.number}) on {local:%A}, {_d(local.date())} at "
                        f"{local:%-I:%M %p} at {ap.hearing_place}.",
                        "You may appear and be heard, and present evidence in support of your appeal.",
                        "The Select Board will render a written decision within 30 days of the conclusion of the "
                        "hearing (Ch. 295 Art. IV appeals ¶A)."])
    return ap


def _dispose_related_abatement(ra: Abatement, *, retro: Decimal, on: date, appeal_number: str, acting_user) -> None:
    """The abatement application named on a credit appeal, once the Select Board's credit is abated from its
    bill (appeals ¶A), is decided by that decision: a pending one is closed as abated on appeal, with the sum
    and the day, and its decision clock met, so that it cannot be granted again (issue 17)."""
    ra = Abatement.objects.select_for_update().select_related("case", "bill").get(pk=ra.pk)
    if ra.case.status == A.REVERSED_ON_APPEAL:
        return
    was_pending = ra.case.status == A.FILED
    case_transition(case=ra.case, to=A.REVERSED_ON_APPEAL, acting_user=acting_user, on=on,
                    why=f"Credit granted on appeal {appeal_number} abated ${fmt(retro)} of bill {ra.bill.number}")
    if was_pending:
        _meet(ra.case, wf.ABATEMENT_DECISION, on, f"Decided by the Select Board on appeal {appeal_number}",
              acting_user)
        ra.decided_on, ra.amount_granted = on, retro
        ra.reasons = f"Abated by the Select Board's decision on appeal {appeal_number} (credit granted on appeal)."
        ra.save(update_fields=["decided_on", "amount_granted", "reasons"])


@transaction.atomic
def appeal_close_hearing(*, appeal: Appeal, acting_user, on: date | None = None) -> Appeal:
    """The hearing concluded: the Select Board's 30 days to decide in writing start (appeals ¶A)."""
    on = _check_on(on)
    ap = Appeal.objects.select_for_update().select_related("case").get(pk=appeal.pk)
    if ap.notice_sent_on is None:
        raise ReliefError(ERR_NOTICE_FIRST)
    local = timezone.localtime(ap.hearing_at) if timezone.is_aware(ap.hearing_at) else ap.hearing_at
    if on < local.date():
        raise ReliefError(ERR_HEARING_NOT_YET.format(hearing=local.date()), field="on")
    case_transition(case=ap.case, to=AP.HEARING_CLOSED, acting_user=acting_user, on=on, why="Hearing concluded")
    ap.hearing_closed_on = on
    ap.save(update_fields=["hearing_closed_on"])
    _start_clock(ap.case, wf.APPEAL_DECISION, on, acting_user)
    return ap


def _retro_credit_amount(bill: Bill, percent: Decimal) -> Decimal:
    """What a credit of ``percent`` would have taken off ``bill`` had it been in force when it was issued."""
    base = Decimal(100) - bill.credit_percent
    if base <= 0:
        return ZERO
    return round_cents(bill.amount * percent / base)


@transaction.atomic
def appeal_decide(*, appeal: Appeal, outcome: str, findings: str, acting_user, amount: Decimal | None = None,
                  credit_percent: Decimal | None = None, on: date | None = None) -> Appeal:
    """The Select Board's written decision (appeals ¶A–¶B), recorded by its clerk.

    - Abatement appeal: affirm, or reverse naming the sum, never more than was paid; the sum is posted
      against the bill (refund or credit as the owner chose on the application).
    - Credit appeal: affirm, or reverse naming the credit, applied prospectively; if the owner paid in
      full and also applied for an abatement of the bill (``related_abatement``), the credit is also
      abated from that bill.
    - §16E lien abatement: grant, grant in part or deny; a denial in whole or part states the right to
      appeal to the Appellate Tax Board within three months.
    """
    on = _check_on(on)
    # of=("self",): PostgreSQL cannot lock the nullable side of the outer joins; the appeal row is the lock.
    ap = Appeal.objects.select_for_update(of=("self",)).select_related(
        "case", "case__parent", "bill", "related_abatement__bill", "commitment_line__commitment").get(pk=appeal.pk)
    outcome = AppealOutcome(outcome)
    if not (findings or "").strip():
        raise ReliefError(ERR_REASONS, field="findings")
    allowed = {AppealSubject.LIEN: (AppealOutcome.GRANT, AppealOutcome.GRANT_PART, AppealOutcome.DENY)}.get(
        ap.subject, (AppealOutcome.AFFIRM, AppealOutcome.REVERSE))
    if outcome not in allowed:
        raise ReliefError(ERR_OUTCOME.format(outcome=outcome.label), field="outcome")
    paras: list[str] = []
    parent = ap.case.parent
    atb = False
    if ap.subject == AppealSubject.ABATEMENT:
        ab = parent.abatement
        if outcome == AppealOutcome.REVERSE:
            most = bill_abatable(ab.bill)
            amount = round_cents(Decimal(amount)) if amount is not None else None
            if amount is None or not (ZERO < amount <= most):
                raise ReliefError(ERR_REVERSE_SUM.format(most=fmt_display(most)), field="amount")
            ap.amount_abated = amount
        to = AP.AFFIRMED if outcome == AppealOutcome.AFFIRM else AP.REVERSED
    elif ap.subject == AppealSubject.CREDIT:
        capp = parent.credit_application
        if outcome == AppealOutcome.REVERSE:
            most = capp.credit_type.max_percent
            pct = Decimal(credit_percent) if credit_percent is not None else None
            if pct is None or not (Decimal(0) < pct <= most):
                raise ReliefError(ERR_REVERSE_CREDIT.format(most=fmt_ratio(most)), field="credit_percent")
            ap.credit_percent = pct
        to = AP.AFFIRMED if outcome == AppealOutcome.AFFIRM else AP.REVERSED
    else:
        if outcome in (AppealOutcome.GRANT, AppealOutcome.GRANT_PART):
            prior = sum((a.amount_abated or ZERO for a in Appeal.objects.filter(commitment_line=ap.commitment_line)
                         .exclude(pk=ap.pk)), ZERO)
            most = min(ap.amount_requested, ap.commitment_line.total - prior)
            amount = most if outcome == AppealOutcome.GRANT else (round_cents(Decimal(amount)) if amount is not None
                                                                   else None)
            if amount is None or not (ZERO < amount <= most) or (outcome == AppealOutcome.GRANT_PART
                                                                  and amount >= ap.amount_requested):
                raise ReliefError(ERR_LIEN_AMOUNT.format(most=fmt_display(most)), field="amount")
            ap.amount_abated = amount
        to = {AppealOutcome.GRANT: L.GRANTED, AppealOutcome.GRANT_PART: L.GRANTED_PART,
              AppealOutcome.DENY: L.DENIED}[outcome]
        atb = outcome != AppealOutcome.GRANT
    case_transition(case=ap.case, to=to, acting_user=acting_user, on=on, why=findings,
                    data={"outcome": outcome.value})
    ap.outcome, ap.decided_on, ap.findings = outcome, on, findings.strip()
    ap.save(update_fields=["outcome", "decided_on", "findings", "amount_abated", "credit_percent"])
    local = timezone.localtime(ap.hearing_at) if timezone.is_aware(ap.hearing_at) else ap.hearing_at
    what = "Application" if ap.subject == AppealSubject.LIEN else "Appeal"
    paras.append(f"{what} {ap.case.number} ({ap.get_subject_display()}), filed {_d(ap.case.filed_on)}, heard "
                 f"{_d(local.date())}, hearing concluded {_d(ap.hearing_closed_on)}.")
    paras.append(f"Findings: {ap.findings}")
    if ap.subject == AppealSubject.ABATEMENT:
        if outcome == AppealOutcome.REVERSE:
            abatement_post(bill=ab.bill, amount=ap.amount_abated, on=on, disposition=ab.disposition,
                           acting_user=acting_user, memo=f"Abated by the Select Board on appeal {ap.case.number}")
            case_transition(case=parent, to=A.REVERSED_ON_APPEAL, acting_user=acting_user, on=on,
                            why=f"Select Board reversed on appeal {ap.case.number}")
            paras.append(f"The Select Board REVERSES the Department's decision and abates ${fmt_display(ap.amount_abated)} "
                         f"of bill {ab.bill.number} (not more than the amounts paid), "
                         + ("to be refunded to the owner." if ab.disposition == Disposition.REFUND
                            else "credited to the owner's account."))
        else:
            paras.append("The Select Board AFFIRMS the Department's decision.")
    elif ap.subject == AppealSubject.CREDIT:
        if outcome == AppealOutcome.REVERSE:
            capp = parent.credit_application
            # Only the part the Director did not grant is added: a grant in part stays and is replaced.
            prior = capp.grants.filter(revoked_on__isnull=True).first()
            if prior is not None:
                prior.revoked_on, prior.revoke_reason = on, f"Replaced by the Select Board's decision {ap.case.number}"
                prior.save(update_fields=["revoked_on", "revoke_reason"])
            g = _grant(capp, percent=ap.credit_percent, on=on, by="select_board",
                       basis=f"Select Board decision {ap.case.number}", acting_user=acting_user)
            case_transition(case=parent, to=C.GRANTED_ON_APPEAL, acting_user=acting_user, on=on,
                            why=f"Select Board reversed on appeal {ap.case.number}")
            paras.append(f"The Select Board REVERSES the denial and grants a credit of {fmt_ratio(ap.credit_percent)}% "
                         f"of the stormwater fee of parcel {capp.parcel.parcel_id}, applied prospectively against "
                         f"charges billed from {_d(on)}" + (f", until {_d(g.expires_on)}" if g.expires_on else "") + ".")
            ra = ap.related_abatement
            if ra is not None:
                retro = min(_retro_credit_amount(ra.bill, ap.credit_percent), bill_abatable(ra.bill))
                if retro > 0:
                    abatement_post(bill=ra.bill, amount=retro, on=on, disposition=ra.disposition,
                                   acting_user=acting_user,
                                   memo=f"Credit granted on appeal {ap.case.number} applied to a bill paid in full")
                    ap.amount_abated = retro
                    ap.save(update_fields=["amount_abated"])
                    event_record(case=ra.case, kind="abatement", acting_user=acting_user, on=on,
                                 why=f"${fmt(retro)} abated: credit granted on appeal {ap.case.number}")
                    _dispose_related_abatement(ra, retro=retro, on=on, appeal_number=ap.case.number,
                                               acting_user=acting_user)
                    paras.append(f"The owner paid bill {ra.bill.number} in full and applied for its abatement "
                                 f"({ra.case.number}): the credit is also applied to that bill, abating "
                                 f"${fmt_display(retro)} (appeals ¶A).")
        else:
            paras.append("The Select Board AFFIRMS the Department's decision.")
    else:
        if ap.amount_abated:
            paras.append(f"The Select Board {'GRANTS' if outcome == AppealOutcome.GRANT else 'GRANTS IN PART'} the "
                         f"abatement: ${fmt_display(ap.amount_abated)} of the charges committed to the "
                         f"FY{ap.commitment_line.commitment.tax_fiscal_year} tax bill is abated; the Board of Assessors "
                         "is notified to abate the lien accordingly (MGL c.83 §16E).")
        if atb:
            if outcome == AppealOutcome.DENY:
                paras.append("The Select Board DENIES the abatement.")
            due = deadline(wf.ATB, on).due
            paras.append(f"You have the right to seek review of this decision by filing an appeal with the Appellate "
                         f"Tax Board of the Commonwealth of Massachusetts within three months of the date of this "
                         f"decision, that is by {_d(due)} (Ch. 295 Art. IV appeals ¶B; MGL c.59, c.83).")
            _start_clock(ap.case, wf.ATB, on, acting_user)
    _notice(ap.case, tag="decision", subject=f"Decision of the Select Board: {outcome.label}", on=on,
            acting_user=acting_user, signer="Clerk, for the Select Board", paragraphs=paras,
            citation="Ch. 295 Art. IV appeals ¶A" + ("–¶B" if ap.subject == AppealSubject.LIEN else ""))
    if ap.subject == AppealSubject.LIEN and ap.amount_abated:
        _notice(ap.case, tag="assessors_certificate", subject="Certificate of abatement of committed charges", on=on,
                acting_user=acting_user, signer="Clerk, for the Select Board", to_name="Board of Assessors",
                to_address="Longmeadow Town Hall\n20 Williams Street\nLongmeadow, MA 01106", to_email="",
                citation="MGL c.83 §16E; Ch. 295 Art. IV appeals ¶B", paragraphs=paras[:1] + paras[2:3])
    audit_record(actor=acting_user, action="appeal.decide", obj=ap, why=findings,
                 data={"outcome": outcome.value, "amount": fmt(ap.amount_abated) if ap.amount_abated else None,
                       "credit_percent": str(ap.credit_percent) if ap.credit_percent else None})
    return ap
