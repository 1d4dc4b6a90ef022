"""The acts on a relief case, as a table shared by the web pages and the JSON API: who may do each
(one permission), on which kind of case, and the one service it calls with the parsed input.

An owner's acts (withdraw, resubmit, appeal) need RELIEF_APPLY *and* to be a party to the case, or
staff recording a paper filing (RELIEF_REVIEW).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Callable

from django.core.exceptions import PermissionDenied
from django.utils import timezone

from stormwater.accounts.roles import Perm
from stormwater.cases.models import Case

from . import services as sv
from . import workflow as wf
from .models import Abatement
from .selectors import detail_of, relief_case_get_for_user

ERR_UNKNOWN = "No such action “{action}” on a {kind} case."


def parse_date(v, name: str) -> date | None:
    if v in (None, ""):
        return None
    try:
        return v if isinstance(v, date) else date.fromisoformat(str(v))
    except ValueError:
        raise sv.ReliefError(f"{name}: {v!r} is not a date (YYYY-MM-DD)", field=name) from None


def parse_money(v, name: str) -> Decimal | None:
    if v in (None, ""):
        return None
    try:
        d = Decimal(str(v).replace(",", "").replace("$", "").strip())
    except InvalidOperation:
        raise sv.ReliefError(f"{name}: {v!r} is not an amount", field=name) from None
    if not d.is_finite():
        raise sv.ReliefError(f"{name}: {v!r} is not an amount", field=name)
    return d


def parse_datetime(v, name: str) -> datetime:
    if v in (None, ""):
        raise sv.ReliefError(f"{name}: required (YYYY-MM-DDTHH:MM)", field=name)
    try:
        dt = datetime.fromisoformat(str(v))
    except ValueError:
        raise sv.ReliefError(f"{name}: {v!r} is not a date and time (YYYY-MM-DDTHH:MM)", field=name) from None
    return timezone.make_aware(dt) if timezone.is_naive(dt) else dt


@dataclass(frozen=True)
class Action:
    perm: str
    kinds: tuple[str, ...]
    label: str
    run: Callable
    owner_act: bool = False      # the owner's act: the owner (a party) or staff recording paper


def _grant(case):
    g = detail_of(case).grants.filter(revoked_on__isnull=True).order_by("-id").first()
    if g is None:
        raise sv.ReliefError("No credit is in force on this case.")
    return g


def _related(p, user):
    n = (p.get("related_abatement") or "").strip()
    if not n:
        return None
    c = relief_case_get_for_user(user=user, number=n)
    if c.kind != wf.ABATEMENT:
        raise sv.ReliefError(f"{n} is not an abatement application.", field="related_abatement")
    return Abatement.objects.get(case=c)


CREDIT, ABATEMENT, APPEALS = (wf.CREDIT,), (wf.ABATEMENT,), (wf.APPEAL, wf.LIEN)
ACTIONS: dict[str, Action] = {
    "complete": Action(Perm.RELIEF_REVIEW, CREDIT, "Accept as complete", lambda c, p, u: sv.credit_determine_complete(
        application=detail_of(c), acting_user=u, on=parse_date(p.get("on"), "on"))),
    "incomplete": Action(Perm.RELIEF_REVIEW, CREDIT, "Find incomplete", lambda c, p, u: sv.credit_determine_incomplete(
        application=detail_of(c), missing=p.get("missing", ""), acting_user=u, on=parse_date(p.get("on"), "on"))),
    "resubmit": Action(Perm.RELIEF_APPLY, CREDIT, "The missing items are submitted", lambda c, p, u: sv.credit_resubmit(
        application=detail_of(c), acting_user=u), owner_act=True),
    "decide_credit": Action(Perm.RELIEF_DECIDE, CREDIT, "Decide", lambda c, p, u: sv.credit_decide(
        application=detail_of(c), decision=p.get("decision", ""), reasons=p.get("reasons", ""),
        percent=parse_money(p.get("percent"), "percent"), acting_user=u, on=parse_date(p.get("on"), "on"))),
    "recertify": Action(Perm.RELIEF_REVIEW, CREDIT, "Record recertification", lambda c, p, u: sv.credit_recertify(
        grant=_grant(c), note=p.get("note", ""), acting_user=u, on=parse_date(p.get("on"), "on"))),
    "revoke": Action(Perm.RELIEF_DECIDE, CREDIT, "Revoke", lambda c, p, u: sv.credit_revoke(
        grant=_grant(c), reason=p.get("reason", ""), lapsed=str(p.get("lapsed", "")).lower() in ("1", "true", "on",
                                                                                                  "yes"),
        acting_user=u, on=parse_date(p.get("on"), "on"))),
    "decide_abatement": Action(Perm.RELIEF_DECIDE, ABATEMENT, "Decide", lambda c, p, u: sv.abatement_decide(
        abatement=detail_of(c), decision=p.get("decision", ""), reasons=p.get("reasons", ""),
        amount=parse_money(p.get("amount"), "amount"), acting_user=u, on=parse_date(p.get("on"), "on"))),
    "appeal": Action(Perm.RELIEF_APPLY, CREDIT + ABATEMENT, "Appeal to the Select Board", lambda c, p, u: sv.appeal_file(
        decided_case=c, grounds=p.get("grounds", ""), related_abatement=_related(p, u), acting_user=u,
        on=parse_date(p.get("on"), "on") if u.can(Perm.RELIEF_REVIEW) else None), owner_act=True),
    "transmit": Action(Perm.RELIEF_REVIEW, APPEALS, "Transmit the record", lambda c, p, u: sv.appeal_transmit_record(
        appeal=detail_of(c), acting_user=u, on=parse_date(p.get("on"), "on"))),
    "schedule": Action(Perm.APPEAL_RECORD, APPEALS, "Set the hearing", lambda c, p, u: sv.appeal_schedule_hearing(
        appeal=detail_of(c), hearing_at=parse_datetime(p.get("hearing_at"), "hearing_at"), place=p.get("place", ""),
        acting_user=u)),
    "notice": Action(Perm.APPEAL_RECORD, APPEALS, "Send the hearing notice", lambda c, p, u: sv.appeal_send_notice(
        appeal=detail_of(c), acting_user=u)),
    "close_hearing": Action(Perm.APPEAL_RECORD, APPEALS, "Hearing concluded", lambda c, p, u: sv.appeal_close_hearing(
        appeal=detail_of(c), acting_user=u, on=parse_date(p.get("on"), "on"))),
    "decide_appeal": Action(Perm.APPEAL_RECORD, APPEALS, "Record the Select Board's decision",
                            lambda c, p, u: sv.appeal_decide(
                                appeal=detail_of(c), outcome=p.get("outcome", ""), findings=p.get("findings", ""),
                                amount=parse_money(p.get("amount"), "amount"),
                                credit_percent=parse_money(p.get("credit_percent"), "credit_percent"), acting_user=u,
                                on=parse_date(p.get("on"), "on"))),
    "withdraw": Action(Perm.RELIEF_APPLY, CREDIT + ABATEMENT + APPEALS, "Withdraw", lambda c, p, u: sv.relief_withdraw(
        case=c, why=p.get("why", ""), acting_user=u), owner_act=True),
}


def is_party(user, case: Case) -> bool:
    return case.applicant_id == user.pk or case.parties.filter(user=user).exists()


def may(user, case: Case, name: str) -> bool:
    a = ACTIONS.get(name)
    if a is None or case.kind not in a.kinds:
        return False
    if a.owner_act:
        return (user.can(Perm.RELIEF_APPLY) and is_party(user, case)) or user.can(Perm.RELIEF_REVIEW)
    return user.can(a.perm)


def act(*, case: Case, name: str, params: dict, user):
    """Run one act: PermissionDenied if the user may not, ReliefError/TransitionError from the service."""
    a = ACTIONS.get(name)
    if a is None or case.kind not in a.kinds:
        raise sv.ReliefError(ERR_UNKNOWN.format(action=name, kind=case.kind))
    if not may(user, case, name):
        raise PermissionDenied(f"Your role may not do this ({a.perm}).")
    return a.run(case, params, user)
