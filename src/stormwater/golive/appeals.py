"""A Select Board appeal of the old office at go-live (issue 32; Ch. 295 Art. IV appeals ¶A), shared by the
conversions of abatements (``relief_cases``) and of credits (``cases``): the checks of its dates against the ordinance,
and the appeal case moved through its workflow on its days with its clocks, as if kept here.

- filed within 30 days of the written decision appealed (the owner's window, met that day);
- the record transmitted to the Select Board on filing ("forthwith");
- the hearing within 90 days of the filing; notice no less than 10 days before it (rolled back to a business day): met
  on the day given, or running to its last day when the hearing is still to come;
- a hearing on or before today was held and concluded that day: the Board's 30 days to decide in writing run from it.
"""
from __future__ import annotations

from datetime import date, datetime, time

from django.utils import timezone

from stormwater.audit.services import audit_record
from stormwater.cases.models import Case, CaseParty, PartyRole
from stormwater.cases.services import case_open, case_transition, clock_meet, clock_running, clock_start, event_record
from stormwater.rules.deadlines import CLOCKS, case_clock_terms, deadline

from .export import parse_date


def hearing_at(text: str) -> datetime | None:
    """A hearing's day, or day and time (``2026-12-10 19:00``; a day alone is kept at 00:00), aware."""
    t = text.strip()
    for f in ("%Y-%m-%d %H:%M", "%m/%d/%Y %H:%M", "%m/%d/%Y %I:%M %p", "%Y-%m-%d %I:%M %p"):
        try:
            return timezone.make_aware(datetime.strptime(t, f))
        except ValueError:
            continue
    d = parse_date(t)
    return timezone.make_aware(datetime.combine(d, time(0, 0))) if d else None


def appeal_dates_check(*, decided: date, appeal: date, notice: date | None, hearing_at: datetime | None, today: date,
                       refuse) -> None:
    """Refuse (``refuse(column, why)``) the appeal's dates that contradict appeals ¶A."""
    last = deadline("appeal_filing", decided).due
    if appeal < decided:
        refuse("appeal_filed_on", f"dates out of order: appealed {appeal} before the decision {decided}")
    elif appeal > last:
        refuse("appeal_filed_on", f"appealed {appeal}: an appeal is filed within 30 days of the written decision of "
                                  f"{decided}, the last day was {last} (Ch. 295 Art. IV appeals ¶A)")
    hday = timezone.localtime(hearing_at).date() if hearing_at else None
    if hday:
        last = deadline("appeal_hearing_latest", appeal).due
        if hday < appeal:
            refuse("hearing_on", f"dates out of order: the hearing {hday} before the appeal was filed {appeal}")
        elif hday > last:
            refuse("hearing_on", f"the hearing {hday} is more than 90 days after the appeal's filing on {appeal}: "
                                 f"the latest day was {last} (Ch. 295 Art. IV appeals ¶A)")
    if notice and not hday:
        refuse("notice_sent_on", "a notice of no hearing: give hearing_on")
    if notice and hday:
        by = deadline("hearing_notice_latest", hday).due
        if notice < appeal:
            refuse("notice_sent_on", f"dates out of order: notice {notice} before the appeal was filed {appeal}")
        elif notice > by:
            refuse("notice_sent_on", f"notice sent {notice}: notice of a hearing on {hday} is sent no less than 10 "
                                     f"days before, by {by} (appeals ¶A)")
    if hday and not notice and hday > today:
        by = deadline("hearing_notice_latest", hday).due
        if by < today:
            refuse("hearing_on", f"notice of the hearing on {hday} had to be sent by {by} (no less than 10 days "
                                 "before, appeals ¶A) and none is given: give notice_sent_on, or the new hearing date")


def clock_from_rule(case: Case, kind: str, start: date, user, *, hearing_date: date | None = None):
    """A clock of ``rules.deadlines.CLOCKS`` started on the case on ``start``, due as the rule says."""
    rule = CLOCKS[kind]
    length, roll = case_clock_terms(kind, start=start, hearing_date=hearing_date)
    return clock_start(case=case, kind=kind, label=rule.label, citation=rule.citation, start=start, length=length,
                       roll=roll, acting_user=user)


def clock_met(case: Case, kind: str, on: date, reason: str, user) -> None:
    c = clock_running(case=case, kind=kind)
    if c is not None:
        clock_meet(clock=c, on=on, reason=reason, acting_user=user)


def owner_party(case: Case, owner) -> None:
    if owner is not None:
        CaseParty.objects.create(case=case, role=PartyRole.OWNER, name=owner.name,
                                 mailing_address=owner.mailing_address,
                                 email=owner.email or (owner.user.email if owner.user_id else ""), user=owner.user)


def appeal_convert(*, parent: Case, subject: str, decided: date, appeal: date, notice: date | None,
                   hearing_at: datetime | None, place: str, bill, owner, user, why: str) -> str:
    """The appeal case of ``parent`` (its decision of ``decided``) on its days; → its number."""
    from stormwater.relief import workflow as wf
    from stormwater.relief.models import Appeal

    AP = wf.AppealStatus
    clock_met(parent, wf.APPEAL_FILING, appeal, "appealed (converted)", user)
    case = case_open(kind=wf.APPEAL, title=f"Appeal of {parent.number}: {parent.title}", acting_user=user,
                     parent=parent, year=appeal.year)
    case.filed_on = appeal
    case.save(update_fields=["filed_on"])
    owner_party(case, owner)
    ap = Appeal.objects.create(case=case, subject=subject, decision_date=decided, bill=bill,
                               grounds="Converted from the old office's records (issue 32)",
                               record_transmitted_on=appeal)
    event_record(case=parent, kind="appeal", acting_user=user, on=appeal,
                 why=f"Appealed to the Select Board: {case.number}", data={"appeal": case.number})
    clock_from_rule(case, wf.HEARING, appeal, user)
    case_transition(case=case, to=AP.RECORD_TRANSMITTED, acting_user=user, on=appeal,
                    why="Converted: record transmitted to the Select Board on filing (appeals ¶A)")
    if hearing_at:
        hday = timezone.localtime(hearing_at).date()
        held = hday <= timezone.localdate()
        set_on = notice or appeal
        case_transition(case=case, to=AP.HEARING_SCHEDULED, acting_user=user, on=set_on,
                        why=f"Converted: hearing set for {hday}" + (f" at {place}" if place else ""))
        ap.hearing_at, ap.hearing_place, ap.notice_sent_on = hearing_at, place, notice
        ap.save(update_fields=["hearing_at", "hearing_place", "notice_sent_on"])
        if notice or not held:
            clock_from_rule(case, wf.NOTICE, set_on, user, hearing_date=hday)
        if notice:
            clock_met(case, wf.NOTICE, notice, "notice sent (converted)", user)
        if held:
            case_transition(case=case, to=AP.HEARING_CLOSED, acting_user=user, on=hday,
                            why="Converted: hearing held and concluded (appeals ¶A)")
            ap.hearing_closed_on = hday
            ap.save(update_fields=["hearing_closed_on"])
            clock_from_rule(case, wf.APPEAL_DECISION, hday, user)
    audit_record(actor=user, action="golive.appeal", obj=ap, why=why)
    return case.number
