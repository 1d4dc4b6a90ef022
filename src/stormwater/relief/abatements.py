"""Abatement of a stormwater bill (Ch. 295 Art. IV billing ¶E): applied for within 30 days of the bill's issue and
only once it is paid in full; the Department's written decision within 60 days, a grant posted to the ledger and
refunded or credited as the owner chose.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.db import transaction

from stormwater.audit.services import actor_or_none as _user, audit_record
from stormwater.cases.services import case_document_add, case_transition
from stormwater.receivables.services import abatement_post
from stormwater.rules.deadlines import deadline
from stormwater.rules.money import ZERO, fmt, fmt_display, round_cents
from stormwater.utility.models import Bill

from . import workflow as wf
from .acts import (ERR_REASONS, ReliefError, _appeal_paragraph, _check_on, _d, _decision, _notice, _open,
                   _start_clock)
from .models import Abatement, AbatementGround, Decision, Disposition
from .selectors import abatement_windows, bill_abatable, bill_owed

A = wf.AbatementStatus

ERR_ABATEMENT_LATE = ("An abatement must be applied for within 30 days of the bill's issue date (Ch. 295 Art. IV "
                      "billing ¶E): bill {bill} was issued {issued}; the last day was {due}.")
ERR_NOT_ISSUED = "Bill {bill} is not issued until {issued}."
ERR_NOT_PAID = ("An abatement may be applied for only after the bill is paid in full (Ch. 295 Art. IV billing ¶E): "
                "${owed} is still owed on bill {bill} (due {due}).")
ERR_GROUNDS = "Name at least one ground and state why the billing is more likely than not in error (billing ¶E)."
ERR_AMOUNT = "The amount must be more than $0 and at most ${most} (what was paid on the bill and not yet abated)."
ERR_OPEN_ABATEMENT = "Bill {bill} already has an abatement application pending ({number})."


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
        case_document_add(case=case, upload=upload, tag=tag or "evidence", title="Evidence", acting_user=acting_user,
                          keep_location=False)  # an owner's photo without its GPS position (issue 27)
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
