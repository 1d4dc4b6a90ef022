"""Open cases at go-live (issue 32), as far as built: **credits in force** (Ch. 295 Art. IV credits ¶A–¶E), each
entered with its real past dates so the recertification clock computes as if it had been kept here.

The file (CSV or .xlsx through the pipeline; names case-insensitive): ``parcel_id``, ``credit_type`` (the code of a
type of the credit policy in force on the grant day), ``percent``, ``granted_on``, optional ``filed_on`` (default:
the grant day), ``accepted_on`` (default: the filing day) and ``recertify_by`` (default: the type's interval from the
grant). Each becomes a credit case moved through its own workflow on those days (filed → under review → granted, in
full or in part: ``cases.case_transition`` with the day, so its timeline reads as if kept here), its application,
its grant in force and the recertification clock from the grant (credits ¶C). No notice is sent: the owner was told
by the old office. Refused, naming the row and field: an unknown parcel or credit type, a percent not above 0 or
above the type's cap, dates out of order (filed ≤ accepted ≤ granted ≤ today < … recertify_by after the grant), a
credit of that type already in force on the parcel with other figures. Re-running changes nothing.

A credit the old office **denied in whole or in part** comes the same way (appeals ¶A): ``status`` ``denied`` (the
``percent`` is then what was requested; no grant; ``decided_on`` may name the decision's day instead of
``granted_on``), or a percent below the type's cap (granted in part). Its case has the owner's 30 days to appeal from
the decision and, with ``appeal_filed_on`` (optional ``notice_sent_on``, ``hearing_on``, ``hearing_place``), the Select
Board appeal on its days with its clocks (``golive.appeals``). Refused besides: an appeal of a grant in full, an
appeal or hearing whose dates contradict appeals ¶A (``appeals.appeal_dates_check``). A denial converted before
(same parcel, type and decision day) is unchanged.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from stormwater.audit.services import audit_record
from stormwater.cases.services import case_open, case_transition, clock_start
from stormwater.imports.pipeline import Problem, error, refuse_on_errors
from stormwater.parcels.models import Parcel
from stormwater.rules.calendar import add_months

from .export import _norm, parse_date

COLUMNS = ("parcel_id", "credit_type", "percent", "granted_on", "filed_on", "accepted_on", "recertify_by", "status",
           "appeal_filed_on", "notice_sent_on", "hearing_on", "hearing_place")
REQUIRED = ("parcel_id", "credit_type", "percent", "granted_on")


@dataclass
class CasesResult:
    rows: int
    created: int = 0
    unchanged: int = 0
    cases: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    dry_run: bool = True

    def as_json(self) -> dict:
        return {"rows": self.rows, "created": self.created, "unchanged": self.unchanged, "dry_run": self.dry_run,
                "cases": self.cases, "problems": [p.as_json() for p in self.problems]}


class _Rollback(Exception):
    pass


def credits_convert(*, path: str | Path, acting_user, apply: bool = False, source: str | None = None) -> CasesResult:
    """Convert the old office's credits in force (see the module). Dry run unless ``apply``."""
    from stormwater.gis.assessor import read_source
    from stormwater.relief import workflow as wf
    from stormwater.relief.models import AppealSubject, CreditApplication, CreditGrant, Decision
    from stormwater.relief.selectors import grants_in_force, policy_in_force

    C = wf.CreditStatus
    t = read_source(str(path))
    name = source or t.name
    problems = list(t.problems)
    low = {_norm(c): c for c in t.columns}
    if "granted_on" not in low and "decided_on" in low:  # the decision's day, whatever it decided
        low["granted_on"] = low["decided_on"]
    missing = [c for c in REQUIRED if c not in low]
    if missing:
        problems.append(error("missing_column", name, f"the file has no column {', '.join(missing)} (columns: "
                              f"{', '.join(COLUMNS)})"))
        refuse_on_errors(name, problems)
    today = timezone.localdate()
    from .appeals import appeal_convert, appeal_dates_check, clock_from_rule, hearing_at as _hearing_at, owner_party

    parcels = {p.parcel_id: p for p in Parcel.objects.filter(parcel_id__in=[r[low["parcel_id"]] for r in t.rows])}
    bad: list[str] = []
    todo = []
    res = CasesResult(rows=len(t.rows), problems=problems, dry_run=not apply)
    for n, raw in zip(t.row_numbers, t.rows):
        get = lambda c: raw.get(low[c], "").strip() if c in low else ""  # noqa: E731
        days = {}
        for c in ("granted_on", "filed_on", "accepted_on", "recertify_by"):
            days[c] = parse_date(get(c)) if get(c) else None
            if get(c) and days[c] is None:
                bad.append(f"row {n} ({low[c]}): {get(c)!r} is not a date")
        p = parcels.get(get("parcel_id"))
        if p is None:
            bad.append(f"row {n} ({low['parcel_id']}): no parcel {get('parcel_id')!r}")
        granted = days["granted_on"]
        if granted is None:
            if get("granted_on") == "":
                bad.append(f"row {n} ({low['granted_on']}): required")
            continue
        filed = days["filed_on"] or granted
        accepted = days["accepted_on"] or filed
        policy = policy_in_force(granted)
        ctype = next((ct for ct in policy.types.all() if ct.code == get("credit_type")), None) if policy else None
        if ctype is None:
            bad.append(f"row {n} ({low['credit_type']}): no credit type {get('credit_type')!r} in the credit policy "
                       f"in force on {granted}")
        try:
            pct = Decimal(get("percent").rstrip("%"))
        except ArithmeticError:
            pct = None
        if pct is None or not pct.is_finite() or pct <= 0 or (ctype is not None and pct > ctype.max_percent):
            bad.append(f"row {n} ({low['percent']}): {get('percent')!r} is not a percent above 0"
                       + (f" and at most the type's cap {ctype.max_percent}" if ctype else ""))
        if not filed <= accepted <= granted:
            bad.append(f"row {n} ({low['accepted_on'] if 'accepted_on' in low else low['granted_on']}): dates out of "
                       f"order (filed {filed}, accepted {accepted}, granted {granted}; credits ¶D–¶E)")
        if granted > today:
            bad.append(f"row {n} ({low['granted_on']}): {granted} is in the future")
        recert = days["recertify_by"] or (add_months(granted, ctype.recertify_months)
                                          if ctype is not None and ctype.recertify_months else None)
        if recert is not None and recert <= granted:
            bad.append(f"row {n} ({low['recertify_by']}): {recert} is not after the grant {granted}")
        status = _norm(get("status")) or "granted"
        denied = status == "denied"
        if status not in ("granted", "granted_in_full", "granted_in_part", "granted_part", "denied"):
            bad.append(f"row {n} ({low['status']}): {get('status')!r} is not a decided credit's status (granted, "
                       "granted in part, denied)")
        appeal = parse_date(get("appeal_filed_on")) if get("appeal_filed_on") else None
        notice = parse_date(get("notice_sent_on")) if get("notice_sent_on") else None
        hearing = _hearing_at(get("hearing_on")) if get("hearing_on") else None
        for c, v in (("appeal_filed_on", appeal), ("notice_sent_on", notice), ("hearing_on", hearing)):
            if get(c) and v is None:
                bad.append(f"row {n} ({low[c]}): {get(c)!r} is not a date")
            elif c != "hearing_on" and v is not None and v > today:
                bad.append(f"row {n} ({low[c]}): {v} is in the future")
        if (hearing or notice) and not appeal:
            c = "hearing_on" if hearing else "notice_sent_on"
            bad.append(f"row {n} ({low[c]}): a hearing without an appeal: give appeal_filed_on")
        if appeal and ctype is not None and pct is not None:
            if not denied and pct >= ctype.max_percent:
                bad.append(f"row {n} ({low['appeal_filed_on']}): an appeal lies only from a denial in whole or in part "
                           f"(Ch. 295 Art. IV appeals ¶A): {pct}% is the type's whole {ctype.max_percent}%")
            else:
                appeal_dates_check(decided=granted, appeal=appeal, notice=notice, hearing_at=hearing, today=today,
                                   refuse=lambda c, why, n=n: bad.append(f"row {n} ({low.get(c, c)}): {why}"))
        if p is None or ctype is None or pct is None:
            continue
        if denied:
            prior_app = CreditApplication.objects.filter(parcel=p, credit_type__code=ctype.code, decision=Decision.DENY,
                                                         decided_on=granted).first()
            if prior_app is not None:
                res.unchanged += 1
                continue
            todo.append((n, p, ctype, pct, filed, accepted, granted, None, True, (appeal, notice, hearing,
                                                                                   get("hearing_place"))))
            continue
        prior = grants_in_force(on=today, parcel_pks=[p.pk]).filter(credit_type__code=ctype.code).first()
        if prior is not None:
            if (prior.percent, prior.effective_from, prior.recertify_by) == (pct, granted, recert):
                res.unchanged += 1
            else:
                bad.append(f"row {n} ({low['credit_type']}): {ctype.name} is in force on {p.parcel_id} already "
                           f"({prior.application.case.number}) with other figures")
            continue
        todo.append((n, p, ctype, pct, filed, accepted, granted, recert, False, (appeal, notice, hearing,
                                                                                 get("hearing_place"))))
    if bad:
        problems.append(error("bad_row", name, "credits that cannot be converted: nothing converted", bad))
    refuse_on_errors(name, problems)
    try:
        with transaction.atomic():
            for n, p, ctype, pct, filed, accepted, granted, recert, denied, (appeal, notice, hearing, place) in todo:
                case = case_open(kind=wf.CREDIT, title=f"{ctype.name}: {p.address} ({p.parcel_id}) — converted",
                                 acting_user=acting_user, year=filed.year)
                case.filed_on = filed
                case.save(update_fields=["filed_on"])
                case_transition(case=case, to=C.UNDER_REVIEW, acting_user=acting_user, on=accepted,
                                why="Converted from the old office: application complete (credits ¶D)")
                full = pct >= ctype.max_percent and not denied
                to = C.DENIED if denied else C.GRANTED if full else C.GRANTED_PART
                case_transition(case=case, to=to, acting_user=acting_user, on=granted,
                                why=f"Converted from the old office: {'denied' if denied else 'granted'} (credits ¶E)",
                                data={"percent": None if denied else str(pct)})
                owner_party(case, p.owner)
                app = CreditApplication.objects.create(
                    case=case, parcel=p, credit_type=ctype, statement="Converted from the old office's records "
                    "(issue 32)", requested_percent=pct, accepted_on=accepted,
                    decision=Decision.DENY if denied else Decision.GRANT if full else Decision.GRANT_PART,
                    decided_on=granted, granted_percent=None if denied else pct)
                res.cases.append(case.number)
                if not full:  # a denial in whole or in part: the owner's 30 days to appeal (appeals ¶A)
                    clock_from_rule(case, wf.APPEAL_FILING, granted, acting_user)
                if appeal:
                    res.cases.append(appeal_convert(
                        parent=case, subject=AppealSubject.CREDIT, decided=granted, appeal=appeal, notice=notice,
                        hearing_at=hearing, place=place, bill=None, owner=p.owner, user=acting_user,
                        why=f"{name} row {n}"))
                if denied:
                    audit_record(actor=acting_user, action="golive.credit", obj=app, why=f"{name} row {n}")
                    res.created += 1
                    continue
                CreditGrant.objects.create(
                    application=app, parcel=p, credit_type=ctype, percent=pct, effective_from=granted,
                    basis="converted", recertify_by=recert,
                    expires_on=add_months(granted, ctype.duration_months) if ctype.duration_months else None)
                if recert is not None:
                    clock_start(case=case, kind=wf.RECERTIFICATION, label="Recertification of the credit due",
                                citation="Ch. 295 Art. IV credits ¶C; credit policy", start=granted,
                                length=(recert - granted).days, roll=True, acting_user=acting_user)
                audit_record(actor=acting_user, action="golive.credit", obj=app, why=f"{name} row {n}")
                res.created += 1
            if not apply:
                raise _Rollback
    except _Rollback:
        pass
    return res
