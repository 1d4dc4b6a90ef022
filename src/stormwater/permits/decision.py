"""The Director's written action on a permit application and the closing of the file (Ch. 380 § 380-10 I(1), § 380-11,
G(2)(f), § 380-18): approval, approval with conditions or disapproval citing the standards, with the approved plan
sheets and the two-year start clock of an issued permit (§ 380-10 K); the record every decision and denial keeps; the
file closed once review and oversight are complete, starting the refund clock of the special account.
"""
from __future__ import annotations

from datetime import date

from django.db import transaction

from stormwater.audit.services import actor_or_none
from stormwater.cases.models import Case
from stormwater.cases.services import TransitionError, case_transition, clock_start
from stormwater.rules.calendar import add_months

from . import documents
from .approval import approval_check
from . import workflow as wf
from .acts import _keep_pdf, _lock, _today
from .models import ConsultantEngagement, DecisionKind, PermitApplication, PermitCondition
from .selectors import account_balance_of
from .terms import REFUND_DAYS, START_MONTHS

S = wf.Status

ERR_STANDARDS = "A decision must cite the standards it rests on (§ 380-10 I(1), § 380-11)."
ERR_CONDITIONS = "An approval with conditions must list its conditions (§ 380-10 I(1)(b))."
ERR_FINDINGS = "A decision must state its findings in writing (§ 380-10 I(1))."
ERR_CONDITIONS_KIND = ("Conditions are part of an “Approval with conditions, modifications or restrictions” "
                       "(§ 380-10 I(1)(b)): choose that decision, or clear the conditions for a {kind}.")
ERR_WAIVERS_OPEN = "Waiver requests are still open: decide them first (§ 380-8)."
ERR_CONSULTANT_UNPAID = "The consultant fee must be received before review (§ 380-10 G(2)(d))."
ERR_CLOSE_CONSTRUCTION = ("Oversight is not complete: the construction file {case} has no certificate of completion "
                          "(§ 380-18). The file closes when the certificate is issued.")

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
        if to != S.DISAPPROVED:  # issue 30: one gate for every path that approves
            approval_check(app)
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
