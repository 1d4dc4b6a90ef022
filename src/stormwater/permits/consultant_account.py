"""The outside consultant and the special account of MGL c.44 §53G (Ch. 380 § 380-10 G(2)): the selection and its
notice, the fee deposited and any additional fee, the appeal of the selection to the Select Board, the denial for a
fee not paid, the account's interest and expenditures, and the refund of its balance with the final report.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.db import transaction

from stormwater.accounts.roles import Perm
from stormwater.audit.services import audit_record
from stormwater.cases.filing import filed_on
from stormwater.cases.models import CaseParty, PartyRole
from stormwater.cases.services import (TransitionError, case_transition, clock_meet, clock_running, clock_start,
                                       event_record)
from stormwater.rules.clocks import Unit
from stormwater.rules.money import ZERO, fmt, fmt_display, round_cents

from . import documents
from . import workflow as wf
from .acts import ERR_FUTURE_DATE, PermitError, _keep_pdf, _letter, _lock, _today
from .decision import _record_decision
from .models import (AccountEntry, AccountEntryKind, ConsultantAppeal, ConsultantEngagement, DecisionKind,
                     PermitApplication)
from .selectors import account_balance_of, account_entries, account_of, current_engagement
from .terms import APPEAL_DAYS, MIN_YEARS_PRACTICE, PAYMENT_BUSINESS_DAYS, WITHDRAWAL_DAYS

S = wf.Status

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
    pdf = documents.account_report_pdf(application, entries=account_entries(application),
                                       summary=account_of(application), on=on)
    return _keep_pdf(application, pdf, tag="account_report", title="Special account report (MGL c.44 §53G)",
                     filename=f"{application.case.number}-53g-account-{on}.pdf", acting_user=acting_user)
