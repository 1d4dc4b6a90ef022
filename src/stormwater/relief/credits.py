"""Credits against the stormwater fee (Ch. 295 Art. IV credits ¶A–¶E): the credit policy the Select Board approved
and the credit in full it gives a parcel; an owner's application, its completeness and the Director's written
decision within 30 days; recertification and revocation of a credit granted.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.db import transaction

from stormwater.audit.services import actor_or_none as _user, audit_record
from stormwater.cases.services import TransitionError, case_document_add, case_transition, clock_start
from stormwater.parcels.selectors import parcel_classification
from stormwater.rules.calendar import add_months
from stormwater.rules.classes import ClassificationError
from stormwater.rules.deadlines import deadline
from stormwater.rules.money import fmt, fmt_ratio

from . import workflow as wf
from .acts import (ERR_REASONS, ReliefError, _appeal_paragraph, _check_on, _d, _decision, _meet, _notice, _open,
                   _start_clock)
from .models import AmountKind, CreditApplication, CreditGrant, CreditPolicy, CreditType, Decision
from .selectors import grants_in_force, policy_in_force

C = wf.CreditStatus

ERR_NO_POLICY = "No credit policy is in force on {on}: the Select Board's credit policy must be entered first (credits ¶A)."
ERR_TYPE_NOT_IN_FORCE = "“{name}” is not a credit of the policy in force on {on} ({policy})."
ERR_CLASS = "“{name}” is for {classes} property; parcel {pid} is {cls} (credit policy)."
ERR_ALREADY = "Parcel {pid} already has “{name}” in force ({number}); recertify it instead."
ERR_STATEMENT = "State how the property meets the criteria (credits ¶D)."
ERR_MISSING_DOCS = "The application is not complete (credits ¶D). Missing: {items}."
ERR_NOTHING_MISSING = "Say what is missing from the application."
ERR_PERCENT = "The credit granted must be more than 0% and less than the full credit of {full}% for a grant in part."
ERR_NOT_LAPSED = ("The recertification is due by {due}: it has not lapsed, so the credit may be revoked only for "
                  "noncompliance (credits ¶C).")
ERR_REVOKE_REASON = "A revocation must state the noncompliance or the lapse it rests on (credits ¶C)."
ERR_NO_RECERT = "This credit needs no recertification."
ERR_GRANT_NOT_IN_FORCE = "This credit is not in force (revoked on {revoked})."


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
                          acting_user=acting_user, keep_location=False)  # no GPS position kept (issue 27)
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
def credit_upload(*, application: CreditApplication, upload, tag: str, acting_user, keep_location: bool = False):
    label = dict(application.credit_type.required_documents).get(tag, "Supporting document")
    return case_document_add(case=application.case, upload=upload, tag=tag, title=label, acting_user=acting_user,
                             keep_location=keep_location)


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
                     + (f" Recertification is due by {_d(g.recertify_due)}." if g.recertify_by else ""))
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
                        f"The next recertification is due by {_d(g.recertify_due)}."])
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
    # credits ¶C; MGL c.4 §9: lapsed only once the owner's last day — the due day rolled past a weekend or holiday, as
    # the recertification clock and the owner's page show it — has passed.
    due = g.recertify_due
    if lapsed and (due is None or on <= due):
        raise ReliefError(ERR_NOT_LAPSED.format(due=due), field="lapsed")
    case = g.application.case
    why = ("Recertification lapsed (due " + str(due) + "): " if lapsed else "Noncompliance: ") + reason.strip()
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
