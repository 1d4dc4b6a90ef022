"""Open cases at go-live (issue 32): **§16E abatements of charges committed to the tax lien** (MGL c.83 §16E; Ch. 295
Art. IV appeals ¶B), brought in by ``golive cases --kind abatements`` on the rows whose ``subject`` is ``lien`` (or
``§16E``, ``committed``), through the relief domain's own acts on their real days, so each clock computes as if the
case had been kept here.

Appeals ¶B: where the Town collects unpaid charges through MGL c.83 §§16A–16F (the commitment to the tax bill, billing
¶D), the owner may apply to the DPW for an abatement under §16E, with a copy to the Board of Assessors, in the form of a
notice of appeal; the hearing before the Select Board and its time limits are those of appeals ¶A (the hearing within
90 days of the filing, notice no less than 10 days before, the written decision within 30 days of the hearing); a
denial in whole or in part states the owner's right to appeal to the Appellate Tax Board within three months.

A row names the bill whose charges were committed (``bill_number``: the old number, converted as ``CV-<number>`` by
``golive balances`` with its ``lien_amount`` and ``lien_date``; optional ``committed_on`` where the account has more
than one commitment), ``filed_on``, ``status`` (filed, record transmitted, hearing scheduled, hearing concluded,
granted in part, denied: ``relief.workflow.LienStatus`` by code or label), optional ``amount_requested`` (default what
was committed and not abated), ``assessors_copy_on`` (default the filing), ``transmitted_on`` (default the filing:
"forthwith"), ``hearing_on`` (a day, or day and time) and ``hearing_place``, ``notice_sent_on``, ``decided_on`` and,
granted in part, ``amount_granted``. The acts (``relief.liens.lien_abatement_apply``, ``relief.appeals``: the record
transmitted, the hearing set, the notice sent, the hearing concluded, the Board's decision) run on those days inside
``relief.acts.letters_kept_not_sent``: their letters are kept in the case file with the old dates and e-mailed to
nobody (the owner was told by the old office). What an act refuses is refused by row and field like the checks here.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from stormwater.audit.services import audit_record
from stormwater.rules.money import ZERO, fmt
from stormwater.utility.models import Account, Bill, EntryKind

from .appeals import hearing_at as _hearing_at
from .export import REFUSED, _norm, parse_date, parse_money, row_status
from .rows import RowRefused

SUBJECTS = {"lien", "16e", "c_83_16e", "mgl_c_83_16e", "committed", "tax_lien", "lien_abatement"}
TARGETS = ("subject", "committed_on", "assessors_copy_on", "transmitted_on")
ALIASES = {"subject": ("kind", "case_type", "type"), "committed_on": ("lien_date", "commitment_date"),
           "assessors_copy_on": ("assessors_copy", "copy_to_assessors_on"),
           "transmitted_on": ("record_transmitted_on", "record_transmitted")}
REQUIRED = ("bill_number", "filed_on", "status")
ORDER = ("filed_on", "transmitted_on", "notice_sent_on", "hearing_on", "decided_on")
# The steps of the §16E case (relief.workflow.LIEN_MACHINE) in order; a decision is the last.
STEPS = ("filed", "record_transmitted", "hearing_scheduled", "hearing_closed", "decided")


def is_lien(subject: str) -> bool:
    return _norm(subject) in SUBJECTS


def _statuses():
    from stormwater.relief import workflow as wf

    L = wf.LienStatus
    more = {L.FILED: ("pending", "open"), L.RECORD_TRANSMITTED: ("transmitted",),
            L.HEARING_SCHEDULED: ("hearing_set", "scheduled"),
            L.HEARING_CLOSED: ("hearing_concluded", "heard", "hearing_held"),
            L.GRANTED_PART: ("granted_in_part", "partial", "partially_granted"), L.DENIED: ()}
    names = {n: s.value for s, extra in more.items() for n in (s.value, _norm(s.label), *extra)}
    closed = {n for s in (L.GRANTED, L.WITHDRAWN) for n in (s.value, _norm(s.label))} | {"granted_in_full", "closed"}
    return names, closed


@dataclass
class LienRow:
    n: int
    bill: Bill
    line: object
    status: str
    days: dict
    hearing_at: datetime | None
    place: str
    requested: Decimal
    granted: Decimal | None

    @property
    def hearing(self) -> date | None:
        return timezone.localtime(self.hearing_at).date() if self.hearing_at else None


def _check(get, refuse, today: date, names, closed) -> dict | None:
    v: dict = {}
    for c in (*ORDER, "assessors_copy_on", "committed_on"):
        if c == "hearing_on":
            continue
        v[c] = parse_date(get(c)) if get(c) else None
        if get(c) and v[c] is None:
            refuse(c, f"{get(c)!r} is not a date")
        elif v[c] and v[c] > today:
            refuse(c, f"{v[c]} is in the future")
    v["hearing_at"] = _hearing_at(get("hearing_on")) if get("hearing_on") else None
    if get("hearing_on") and v["hearing_at"] is None:
        refuse("hearing_on", f"{get('hearing_on')!r} is not a date (or a date and time)")
    v["hearing_on"] = timezone.localtime(v["hearing_at"]).date() if v["hearing_at"] else None
    for c in ("amount_requested", "amount_granted"):
        v[c] = parse_money(get(c)) if get(c) else None
        if get(c) and (v[c] is None or v[c] <= 0):
            refuse(c, f"{get(c)!r} is not an amount of dollars and cents above $0")
    for c in REQUIRED:
        if not get(c):
            refuse(c, "required")
    status = row_status(get, refuse, known=names, not_converted=closed,
                        why_not_converted="granted in full or closed in the old office — not an open case, nothing "
                                          "to convert (appeals ¶B)",
                        why_unknown="is not an open §16E abatement's status (filed, record transmitted, hearing "
                                    "scheduled, hearing concluded, granted in part, denied)")
    if status is REFUSED or status is None:
        return None
    given = [c for c in ORDER if v[c]]
    for a, b in zip(given, given[1:]):
        if v[b] < v[a]:
            refuse(b, f"dates out of order: {b.replace('_', ' ')} {v[b]} before {a.replace('_', ' ')} {v[a]}")
    step = STEPS.index(status) if status in STEPS else STEPS.index("decided")
    hday = v["hearing_on"]
    if step >= STEPS.index("hearing_scheduled") and hday is None and not get("hearing_on"):
        refuse("hearing_on", f"required: the hearing's day ({get('status')})")
    if step < STEPS.index("record_transmitted") and get("transmitted_on"):
        refuse("transmitted_on", f"the status is {get('status')!r}: the record is not transmitted yet")
    if step < STEPS.index("hearing_scheduled"):
        for c in ("hearing_on", "notice_sent_on"):
            if get(c):
                refuse(c, f"the status is {get('status')!r}: no hearing is set yet")
    if hday and step == STEPS.index("hearing_scheduled") and hday <= today:
        refuse("status", f"the hearing of {hday} is past: give the status hearing concluded, or the new hearing day")
    if hday and step >= STEPS.index("hearing_closed") and hday > today:
        refuse("hearing_on", f"the hearing of {hday} is still to come: the status is hearing scheduled")
    if step == STEPS.index("decided"):
        if v["decided_on"] is None and not get("decided_on"):
            refuse("decided_on", f"required: the day of the Select Board's written decision ({get('status')})")
        if status == "granted_part" and v["amount_granted"] is None and not get("amount_granted"):
            refuse("amount_granted", "required: the sum abated in part")
        if status == "denied" and get("amount_granted"):
            refuse("amount_granted", "the abatement was denied: no sum was abated")
    else:
        for c in ("decided_on", "amount_granted"):
            if get(c):
                refuse(c, f"the status is {get('status')!r} (not decided): a decision's day or sum contradicts it")
    v["status"] = status
    return v


def lien_plan(t, low: dict, today: date, bad: list[str]) -> tuple[list[LienRow], int]:
    """The §16E rows of ``t`` checked (refusals by row and field appended to ``bad``) → (rows to convert, unchanged)."""
    from stormwater.receivables.models import CommitmentLine
    from stormwater.relief.models import Appeal, AppealSubject

    names, closed = _statuses()
    todo: list[LienRow] = []
    unchanged = 0
    seen: dict[str, int] = {}
    for n, raw in zip(t.row_numbers, t.rows):
        get = lambda c: raw.get(low[c], "").strip() if c in low else ""  # noqa: E731
        mark = len(bad)

        def refuse(c: str, why: str, n=n) -> None:
            bad.append(f"row {n} ({low.get(c, c)}): {why}")

        v = _check(get, refuse, today, names, closed)
        number = get("bill_number")
        if number in seen:
            refuse("bill_number", f"bill {number} is on row {seen[number]} too")
        seen.setdefault(number, n)
        account = None
        if get("account"):
            account = Account.objects.filter(number=get("account")).first()
            if account is None:
                refuse("account", f"no account {get('account')!r}")
        elif get("parcel_id"):
            account = Account.objects.filter(parcel__parcel_id=get("parcel_id"), unit__isnull=True).first()
            if account is None:
                refuse("parcel_id", f"no account here for the parcel {get('parcel_id')!r}")
        if v is None or len(bad) > mark or not number:
            continue
        bill = Bill.all_objects.filter(number__in=[f"CV-{number}", number]).select_related("account", "parcel").first()
        lien_days = set(bill.entries.filter(kind=EntryKind.LIEN).values_list("effective_on", flat=True)) if bill else ()
        lines = list(CommitmentLine.objects.filter(account=bill.account, commitment__committed_on__in=lien_days)
                     .select_related("commitment")) if bill else []
        if v["committed_on"]:
            lines = [x for x in lines if x.commitment.committed_on == v["committed_on"]]
        if not lines:
            refuse("bill_number", f"no charges of bill {number} here committed to the tax lien"
                                  + (f" on {v['committed_on']}" if v["committed_on"] else "")
                                  + ": convert the open bills first (golive balances: lien_amount, lien_date)")
            continue
        if account is not None and bill.account_id != account.pk:
            refuse("bill_number", f"bill {bill.number} is on account {bill.account.number} here, not {account.number}")
            continue
        if len(lines) > 1:
            refuse("committed_on", f"bill {bill.number}'s charges were committed more than once: give committed_on")
            continue
        line = lines[0]
        prior = Appeal.objects.filter(subject=AppealSubject.LIEN, commitment_line=line,
                                      case__filed_on=v["filed_on"]).select_related("case").first()
        abated = sum((a.amount_abated or ZERO for a in Appeal.objects.filter(commitment_line=line)), ZERO)
        requested = v["amount_requested"] or line.total - abated
        if prior is not None:
            here = {"amount_requested": prior.amount_requested, "decided_on": prior.decided_on,
                    "amount_granted": prior.amount_abated}
            differ = [k for k, x in here.items() if v.get(k) is not None and v[k] != x]
            if differ:
                refuse(differ[0], f"converted before ({prior.case.number}) with other figures: {here[differ[0]]}")
            else:
                unchanged += 1
            continue
        if v["amount_granted"] is not None and v["amount_granted"] >= requested:
            refuse("amount_granted", f"{fmt(v['amount_granted'])} is not less than the {fmt(requested)} requested "
                                     "(a grant in part)")
            continue
        todo.append(LienRow(n=n, bill=bill, line=line, status=v["status"], days=v, hearing_at=v["hearing_at"],
                            place=get("hearing_place"), requested=requested, granted=v["amount_granted"]))
    return todo, unchanged


def _act(column: str, fn, **kw):
    """Run one relief act; its refusal → ``RowRefused`` naming the column it concerns."""
    from stormwater.cases.services import TransitionError
    from stormwater.relief.acts import ReliefError

    fields = {"hearing_at": "hearing_on", "place": "hearing_place", "amount": "amount_granted"}
    try:
        return fn(**kw)
    except (ReliefError, TransitionError, ValueError) as e:
        field = getattr(e, "field", None)
        raise RowRefused(str(e), fields.get(field, column) if field and field != "on" else column) from None


def lien_convert(r: LienRow, user, why: str) -> str:
    """One §16E case through the relief acts on its days (their letters kept, none e-mailed) → its number."""
    from stormwater.relief import services as rs
    from stormwater.relief.models import AppealOutcome

    d = r.days
    filed = d["filed_on"]
    step = STEPS.index(r.status) if r.status in STEPS else STEPS.index("decided")
    with rs.letters_kept_not_sent():
        ap = _act("amount_requested", rs.lien_abatement_apply, bill=r.bill, commitment_line=r.line,
                  grounds="Converted from the old office's records (issue 32)", amount_requested=r.requested,
                  acting_user=user, assessors_copy_on=d["assessors_copy_on"] or filed, on=filed)
        if step >= STEPS.index("record_transmitted"):
            sent = d["transmitted_on"] or filed
            _act("transmitted_on", rs.appeal_transmit_record, appeal=ap, acting_user=user, on=sent)
            if r.hearing_at:
                _act("hearing_on", rs.appeal_schedule_hearing, appeal=ap, hearing_at=r.hearing_at, place=r.place,
                     acting_user=user, on=d["notice_sent_on"] or sent, send_notice=False)
                if d["notice_sent_on"]:
                    _act("notice_sent_on", rs.appeal_send_notice, appeal=ap, acting_user=user, on=d["notice_sent_on"])
                if step >= STEPS.index("hearing_closed"):
                    _act("notice_sent_on", rs.appeal_close_hearing, appeal=ap, acting_user=user, on=r.hearing)
        if d["decided_on"]:
            outcome = AppealOutcome.GRANT_PART if r.status == "granted_part" else AppealOutcome.DENY
            _act("decided_on", rs.appeal_decide, appeal=ap, outcome=outcome, amount=r.granted, acting_user=user,
                 findings="Decided by the Select Board in the old office: see its written decision (converted, "
                          "issue 32)", on=d["decided_on"])
    audit_record(actor=user, action="golive.lien_abatement", obj=ap, why=why)
    return ap.case.number


def lien_convert_all(todo: list[LienRow], user, name: str, low: dict, bad: list[str]) -> list[str]:
    """Every row through the acts, each in its own savepoint, so every act's refusal is listed (``bad``)."""
    made = []
    for r in todo:
        try:
            with transaction.atomic():
                made.append(lien_convert(r, user, f"{name} row {r.n}"))
        except RowRefused as e:
            bad.append(f"row {r.n} ({low.get(e.field, e.field)}): {e}")
    return made
