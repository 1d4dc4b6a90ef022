"""Appeals to the Select Board (Ch. 295 Art. IV appeals ¶A–¶B): an appeal of a written denial of an abatement or a
credit filed within 30 days; the record transmitted; the hearing within 90 days of the filing, noticed at least 10
days before; the written decision within 30 days of the hearing, abating a sum or granting a credit on reversal.
A §16E abatement of charges committed to the tax bill (``liens``) is heard and decided here on the same terms,
with the Appellate Tax Board appeal a denial names (appeals ¶B).
"""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from stormwater.audit.services import actor_or_none as _user, audit_record
from stormwater.cases.models import Case, CaseParty, PartyRole
from stormwater.cases.services import case_open, case_transition, event_record
from stormwater.formats import day as show_day, moment as show_moment
from stormwater.receivables.services import abatement_post
from stormwater.rules.deadlines import deadline
from stormwater.rules.money import ZERO, fmt, fmt_display, fmt_ratio, round_cents
from stormwater.utility.models import Bill

from . import workflow as wf
from .acts import ERR_REASONS, ReliefError, _check_on, _d, _meet, _notice, _owner_party, _start_clock
from .credits import _grant
from .models import Abatement, Appeal, AppealOutcome, AppealSubject, Disposition
from .selectors import bill_abatable, bill_owed, detail_of

C, A, AP, L = wf.CreditStatus, wf.AbatementStatus, wf.AppealStatus, wf.LienStatus

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
ERR_LIEN_AMOUNT = "The amount must be more than $0 and at most ${most} (what was committed to the tax bill)."


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


def _abatement_open_to_appeal(ra: Abatement) -> bool:
    """Whether the abatement application named on a credit appeal (appeals ¶A: the owner "paid the full amount … and
    has also requested an abatement") can still be abated by the Board's decision on the credit: pending, denied or
    granted in part — the abatement table allows it to be abated on appeal. One granted in full (the owner has what
    was asked), withdrawn (no request stands) or abated by the Board already is not abated again (issue 25)."""
    return A.REVERSED_ON_APPEAL.value in wf.ABATEMENT_TRANSITIONS.get(A(ra.case.status), frozenset())


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
                ra = Abatement.objects.select_for_update().select_related("case", "bill").get(pk=ra.pk)
            if ra is not None and not _abatement_open_to_appeal(ra):
                # The credit stands whatever became of the abatement named on the appeal (issue 25): one granted in
                # full, withdrawn, or abated by the Board already is not abated again; the credit is prospective.
                paras.append(f"The owner's application for abatement of bill {ra.bill.number} ({ra.case.number}) "
                             f"was {ra.case.status_label.lower()} before this decision: that bill is not abated "
                             "again, and the credit applies prospectively (appeals ¶A).")
                event_record(case=ra.case, kind="appeal", acting_user=acting_user, on=on,
                             why=f"Credit granted on appeal {ap.case.number}; this application was already "
                                 f"{ra.case.status_label.lower()}: bill {ra.bill.number} not abated again")
            elif ra is not None:
                # A grant in part of that same request was the Department's answer to it: the Board's credit brings
                # the bill's relief up to the credit, it does not add the whole credit again (appeals ¶A).
                already = ra.amount_granted if ra.case.status == A.GRANTED_PART and ra.amount_granted else ZERO
                retro = min(_retro_credit_amount(ra.bill, ap.credit_percent) - already, bill_abatable(ra.bill))
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
                                 f"${fmt_display(retro)}"
                                 + (f", with the ${fmt_display(already)} the Department granted in part "
                                    f"${fmt_display(retro + already)} in all" if already else "") + " (appeals ¶A).")
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
