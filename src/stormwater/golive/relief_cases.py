"""Open cases at go-live (issue 32): **open abatements and the Select Board appeals of their decisions**, each entered
with its real past dates so its clocks compute as if it had been kept here (Ch. 295 Art. IV billing ¶E; appeals ¶A).

The file (CSV or .xlsx through the pipeline; names case-insensitive, aliases in ``ALIASES``), one row per abatement
application of the old office that is still open — pending at the DPW, or decided (denied, granted in part) with the
owner's 30 days to appeal running or an appeal before the Select Board:

- ``account`` or ``parcel_id``; ``bill_number`` (the old bill), ``issue_date``, ``bill_amount`` (billed and paid in
  full: billing ¶E lets only a paid bill be abated), optional ``fiscal_year`` (default: the issue date's), ``due_date``
  (default: 30 days from issue, fee ¶B);
- ``filed_on``, ``status`` (filed | denied | granted in part), optional ``amount_requested`` (default the bill),
  ``disposition`` (refund | credit, default refund); ``decided_on`` and, granted in part, ``amount_granted``;
- the appeal, if any: ``appeal_filed_on``, optional ``notice_sent_on``, ``hearing_on`` (a date, or date and time) and
  ``hearing_place``. A hearing on or before today was held and concluded that day; a later one is scheduled.

Each row becomes:

- the paid bill, where this system has none (``CV-<old number>``, in the fiscal year's conversion run beside the
  open bills of ``golive balances``): its charge on the issue date and, the same day, an entry of kind ``conversion``
  "paid in full in the old system" — so nothing is owed, no interest runs, and ``relief.selectors.bill_paid`` counts
  it as paid (what an abatement here may return);
- an abatement case moved through its own workflow on its days (``cases.case_transition`` with the day): filed
  (the DPW's 60 days from the filing, billing ¶E), decided (that clock met; the owner's 30 days to appeal from the
  decision, appeals ¶A). A grant in part the old office already refunded or credited is on the bill as an
  ``abatement`` entry with its ``conversion`` counterpart (the money went out in the old system), so it is not
  abatable again;
- an appeal case, child of the abatement: filed (the appeal window met; the hearing within 90 days of the filing), the
  record transmitted the same day ("forthwith"), the hearing scheduled (the notice ≥ 10 days before it: met on the
  day given, or running to its last day), the hearing concluded (the Board's 30 days to decide in writing).

No notice or letter is sent: the owner was told by the old office. Refused, naming the row and field: an unknown
account or parcel, money that is not dollars and cents, dates out of order (issue ≤ filed ≤ decided ≤ appeal ≤ notice,
hearing), an abatement filed more than 30 days after the bill's issue (billing ¶E), an appeal filed more than 30 days
after the decision or a hearing more than 90 days after the appeal or noticed less than 10 days before (appeals ¶A), a
status the workflow cannot reach (an appeal of an undecided abatement, a closed case), a bill this system holds unpaid
or for another account, an account billed here for that fiscal year under another number (¶B). Nothing is applied
when any row is refused; re-running the same file changes nothing.

Rows whose ``subject`` is ``lien`` (``§16E``, ``committed``) are §16E abatements of charges committed to the tax lien
(appeals ¶B), converted through the relief domain's own acts on their days: ``lien_cases``.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from stormwater.audit.services import actor_or_none, audit_record
from stormwater.cases.services import case_open, case_transition
from stormwater.imports.pipeline import error, refuse_on_errors
from stormwater.parcels.models import Parcel
from stormwater.rules.deadlines import deadline
from stormwater.rules.money import ZERO, fmt
from stormwater.utility.models import (CONVERTED_BILL_PREFIX, Account, Bill, Component, EntryKind, Installment,
                                       LedgerEntry, RateResolution)

from . import lien_cases
from .appeals import appeal_convert, appeal_dates_check, clock_from_rule as _clock, owner_party
from .appeals import hearing_at as _hearing_at
from .cases import CasesResult, _Rollback
from .export import REFUSED, _norm, parse_date, parse_money, row_status

TARGETS = ("account", "parcel_id", "bill_number", "fiscal_year", "issue_date", "due_date", "bill_amount",
           "amount_requested", "disposition", "filed_on", "status", "decided_on", "amount_granted",
           "appeal_filed_on", "notice_sent_on", "hearing_on", "hearing_place")
ALIASES = {"account": ("account_number", "acct"), "parcel_id": ("parcel", "map_block_lot", "loc_id"),
           "bill_number": ("bill", "bill_no"), "fiscal_year": ("fy", "year"), "issue_date": ("issued", "bill_date"),
           "due_date": ("due",), "bill_amount": ("amount_billed", "amount_paid", "bill_total"),
           "amount_requested": ("requested",), "filed_on": ("filed", "filed_date", "application_date"),
           "decided_on": ("decided", "decision_date"), "amount_granted": ("granted", "abated"),
           "appeal_filed_on": ("appeal_filed", "appeal_date"), "notice_sent_on": ("notice_sent", "notice_date"),
           "hearing_on": ("hearing", "hearing_date"), "hearing_place": ("place",)}
REQUIRED = ("bill_number", "issue_date", "bill_amount", "filed_on", "status")


def _statuses():
    from stormwater.relief import workflow as wf

    A = wf.AbatementStatus
    open_ = {A.FILED: ("pending", "open", "under_review"), A.DENIED: (),
             A.GRANTED_PART: ("granted_in_part", "partial", "partially_granted")}
    names = {}
    for s, more in open_.items():
        for n in (s.value, _norm(s.label), *more):
            names[n] = s.value
    closed = {n for s in (A.GRANTED, A.WITHDRAWN, A.REVERSED_ON_APPEAL) for n in (s.value, _norm(s.label))}
    return names, closed | {"granted_in_full", "abated_on_appeal", "closed"}


def _fiscal_year(day: date) -> int:
    """The fiscal year (July 1 – June 30, MGL c.44 §56) a day falls in: FY2027 begins 2026-07-01."""
    return day.year + 1 if day.month >= 7 else day.year


@dataclass
class _Row:
    n: int
    account: Account | None
    parcel: Parcel
    bill_number: str
    bill: Bill | None
    fiscal_year: int
    issue: date
    due: date
    amount: Decimal
    requested: Decimal
    disposition: str
    filed: date
    status: str
    decided: date | None
    granted: Decimal | None
    appeal: date | None
    notice: date | None
    hearing_at: datetime | None
    place: str

    @property
    def issue_date(self) -> date:  # as the open bills' rows name it (``balances._run_for``)
        return self.issue

    @property
    def hearing(self) -> date | None:
        return timezone.localtime(self.hearing_at).date() if self.hearing_at else None


def _check(get, today: date, statuses, closed, refuse) -> dict | None:
    """The row's values, or None after refusing what contradicts the rules (each naming the row and field)."""
    v: dict = {}
    for c in ("issue_date", "due_date", "filed_on", "decided_on", "appeal_filed_on", "notice_sent_on"):
        v[c] = parse_date(get(c)) if get(c) else None
        if get(c) and v[c] is None:
            refuse(c, f"{get(c)!r} is not a date")
    v["hearing_on"] = _hearing_at(get("hearing_on")) if get("hearing_on") else None
    if get("hearing_on") and v["hearing_on"] is None:
        refuse("hearing_on", f"{get('hearing_on')!r} is not a date (or a date and time)")
    for c in ("bill_amount", "amount_requested", "amount_granted"):
        v[c] = parse_money(get(c)) if get(c) else None
        if get(c) and (v[c] is None or v[c] <= 0):
            refuse(c, f"{get(c)!r} is not an amount of dollars and cents above $0")
            v[c] = None
    for c in REQUIRED:
        if not get(c):
            refuse(c, "required")
    v["status"] = row_status(get, refuse, known=statuses, not_converted=closed,
                             why_not_converted="decided in full or closed in the old office — not an open case, "
                                               "nothing to convert (billing ¶E; appeals ¶A)",
                             why_unknown="is not an open abatement's status (filed, denied, granted in part)")
    if v["status"] is REFUSED:
        return None
    issue, filed, decided = v["issue_date"], v["filed_on"], v["decided_on"]
    appeal, notice, hearing = v["appeal_filed_on"], v["notice_sent_on"], v["hearing_on"]
    for c in ("filed_on", "decided_on", "appeal_filed_on", "notice_sent_on"):
        if v[c] and v[c] > today:
            refuse(c, f"{v[c]} is in the future")
    if issue and filed:
        last = deadline("abatement_filing", issue).due
        if filed < issue:
            refuse("filed_on", f"dates out of order: filed {filed} before the bill's issue {issue}")
        elif filed > last:
            refuse("filed_on", f"filed {filed}: an abatement is applied for within 30 days of the bill's issue on "
                               f"{issue}, the last day was {last} (Ch. 295 Art. IV billing ¶E)")
    if issue and v["due_date"] and v["due_date"] < issue:
        refuse("due_date", f"dates out of order: due {v['due_date']} before the issue {issue}")
    amount, requested = v["bill_amount"], v["amount_requested"] or v["bill_amount"]
    if amount and requested and requested > amount:
        refuse("amount_requested", f"{fmt(requested)} is more than the bill paid, {fmt(amount)} (billing ¶E)")
    decided_status = v["status"] in ("denied", "granted_part")
    if v["status"] == "filed":
        for c in ("decided_on", "amount_granted"):
            if get(c):
                refuse(c, "the status is filed (no decision yet): a decision's day or sum contradicts it")
        for c in ("appeal_filed_on", "hearing_on", "notice_sent_on"):
            if get(c):
                refuse(c, "an appeal lies only from the DPW's written decision (Ch. 295 Art. IV appeals ¶A): the "
                          "abatement's status is filed")
                break
    elif decided_status:
        if decided is None and not get("decided_on"):
            refuse("decided_on", f"required: the day of the written decision ({get('status')})")
        if decided and filed and decided < filed:
            refuse("decided_on", f"dates out of order: decided {decided} before the filing {filed}")
        g = v["amount_granted"]
        if v["status"] == "granted_part":
            if g is None and not get("amount_granted"):
                refuse("amount_granted", "required: the sum granted in part")
            elif g is not None and requested and g >= requested:
                refuse("amount_granted", f"{fmt(g)} is not less than the {fmt(requested)} requested (a grant in part)")
        elif get("amount_granted"):
            refuse("amount_granted", "the abatement was denied: no sum was granted")
        if appeal and decided:
            appeal_dates_check(decided=decided, appeal=appeal, notice=notice, hearing_at=hearing, today=today,
                               refuse=refuse)
    if (hearing or notice) and not appeal and decided_status:
        refuse("hearing_on" if hearing else "notice_sent_on", "a hearing without an appeal: give appeal_filed_on")
    v["amount_requested"] = requested
    return v


def _plan(t, low: dict, name: str, today: date, bad: list[str]) -> tuple[list[_Row], int]:
    from stormwater.relief.models import Abatement, Disposition
    from stormwater.relief.selectors import bill_owed

    statuses, closed = _statuses()
    parcels = {p.parcel_id: p for p in Parcel.objects.filter(
        parcel_id__in=[r.get(low["parcel_id"], "").strip() for r in t.rows] if "parcel_id" in low else [])}
    accounts = {a.number: a for a in Account.objects.filter(
        number__in=[r.get(low["account"], "").strip() for r in t.rows] if "account" in low else [])
        .select_related("parcel")}
    todo: list[_Row] = []
    unchanged = 0
    seen: dict[str, int] = {}
    for n, raw in zip(t.row_numbers, t.rows):
        get = lambda c: raw.get(low[c], "").strip() if c in low else ""  # noqa: E731
        col = lambda c: low.get(c, c)  # noqa: E731
        mark = len(bad)

        def refuse(c: str, why: str) -> None:
            bad.append(f"row {n} ({col(c)}): {why}")

        account = parcel = None
        if get("account"):
            account = accounts.get(get("account"))
            if account is None:
                refuse("account", f"no account {get('account')!r}")
            else:
                parcel = account.parcel
        elif get("parcel_id"):
            parcel = parcels.get(get("parcel_id"))
            if parcel is None:
                refuse("parcel_id", f"no parcel {get('parcel_id')!r}")
            else:
                account = Account.objects.filter(parcel=parcel, unit__isnull=True).first()
        else:
            refuse("account" if "account" in low else "parcel_id", "required: the account or the parcel")
        v = _check(get, today, statuses, closed, refuse)
        number = get("bill_number")
        if number and number in seen:
            refuse("bill_number", f"bill {number} is on row {seen[number]} too: one open abatement a bill "
                                  "(billing ¶E)")
        seen.setdefault(number, n)
        disposition = _norm(get("disposition")) or Disposition.REFUND.value
        if disposition not in Disposition.values:
            refuse("disposition", f"{get('disposition')!r}: refund or credit")
        fy = None
        if get("fiscal_year"):
            from .export import _parse_year

            fy = _parse_year(get("fiscal_year"))
            if fy is None:
                refuse("fiscal_year", f"{get('fiscal_year')!r} is not a fiscal year")
        if v is None or len(bad) > mark or parcel is None:
            continue
        fy = fy or _fiscal_year(v["issue_date"])
        bill = (Bill.all_objects.filter(number__in=[f"{CONVERTED_BILL_PREFIX}{number}", number])
                .select_related("account").first())
        if bill is not None:
            if account is not None and bill.account_id != account.pk:
                refuse("bill_number", f"bill {bill.number} is on account {bill.account.number} here, not "
                                      f"{account.number}")
                continue
            if bill_owed(bill, as_of=v["filed_on"]) > 0:
                refuse("bill_number", f"bill {bill.number} is unpaid here: an abatement is applied for only once the "
                                      "bill is paid in full (Ch. 295 Art. IV billing ¶E)")
                continue
            prior = Abatement.objects.filter(bill=bill).select_related("case").order_by("-id")
            same = next((a for a in prior if a.case.filed_on == v["filed_on"]), None)
            if same is not None:
                here = {"amount_requested": same.amount_requested, "decided_on": same.decided_on,
                        "amount_granted": same.amount_granted,
                        "appeal_filed_on": getattr(same.case.children.filter(kind="appeal").first(), "filed_on", None)}
                differ = [k for k, x in here.items() if v.get(k) is not None and v[k] != x]
                if differ:
                    refuse(differ[0], f"converted before ({same.case.number}) with other figures: {here[differ[0]]}")
                else:
                    unchanged += 1
                continue
            if any(a.case.status == "filed" for a in prior):
                refuse("bill_number", f"bill {bill.number} already has an abatement pending here")
                continue
        elif account is not None:  # one live bill an account and period (Ch. 295 Art. IV ¶B; the books' check)
            other = Bill.objects.filter(account=account, period_start=date(fy - 1, 7, 1)).first()
            if other is not None:
                refuse("bill_number", f"account {account.number} has bill {other.number} for FY{fy} here: one bill "
                                      "an account and fiscal year (Ch. 295 Art. IV ¶B) — name that bill")
                continue
        todo.append(_Row(n=n, account=account, parcel=parcel, bill_number=number, bill=bill, fiscal_year=fy,
                         issue=v["issue_date"], due=v["due_date"] or deadline("bill_due", v["issue_date"]).due,
                         amount=v["bill_amount"], requested=v["amount_requested"], disposition=disposition,
                         filed=v["filed_on"], status=v["status"], decided=v["decided_on"],
                         granted=v["amount_granted"], appeal=v["appeal_filed_on"], notice=v["notice_sent_on"],
                         hearing_at=v["hearing_on"], place=get("hearing_place")))
    return todo, unchanged


def _paid_bill(r: _Row, res: RateResolution, user) -> Bill:
    """The bill the old system issued and the owner paid in full: charged on its issue date and, that day, paid
    (kind ``conversion``: the payment was taken by the old system, its cash is in the old books)."""
    from .balances import _class_of, _run_for  # the run is found or made as the open bills' run is

    account = r.account or Account.objects.get_or_create(parcel=r.parcel, unit=None,
                                                         defaults={"number": f"SW-{r.parcel.parcel_id}"})[0]
    r.account = account
    run = _run_for(r.fiscal_year, [r], res, user)
    owner = account.billed_owner
    start = date(r.fiscal_year - 1, 7, 1)
    bill = Bill.objects.create(
        number=f"{CONVERTED_BILL_PREFIX}{r.bill_number}", run=run, account=account, parcel=r.parcel, period_start=start,
        period_end=date(r.fiscal_year, 6, 30), issue_date=r.issue, owner_name=owner.name if owner else "",
        mailing_address=owner.mailing_address if owner else "", property_class=_class_of(r.parcel),
        impervious_sqft=ZERO, erus=0, gross_fee=r.amount, amount=r.amount, blocks=[],
        explanation=(f"Converted from the old system's bill {r.bill_number} (FY{r.fiscal_year}), paid in full there, "
                     f"for its abatement application of {r.filed} (issue 32)."),
        water_sewer_account=r.parcel.water_sewer_account)
    inst = Installment.objects.create(bill=bill, seq=1, amount=r.amount, issue_date=r.issue, due_date=r.due)
    e = dict(account=account, bill=bill, installment=inst, component=Component.PRINCIPAL, effective_on=r.issue,
             created_by=actor_or_none(user))
    memo = f"Converted: old bill {r.bill_number}"
    LedgerEntry.objects.create(kind=EntryKind.CHARGE, amount=r.amount, memo=memo, **e)
    LedgerEntry.objects.create(kind=EntryKind.CONVERSION, amount=-r.amount,
                               memo=f"{memo} — paid in full in the old system (by {r.filed})", **e)
    run.bill_count = Bill.all_objects.filter(run=run).count()
    run.total_billed = sum(Bill.all_objects.filter(run=run).values_list("amount", flat=True), ZERO)
    run.save(update_fields=["bill_count", "total_billed"])
    return bill


def _convert(r: _Row, res: RateResolution, user, name: str) -> list[str]:
    """One row: its paid bill, its abatement case on its days and, appealed, its appeal case on theirs."""
    from stormwater.relief import workflow as wf
    from stormwater.relief.models import Abatement, AbatementGround, AppealSubject, Decision

    A = wf.AbatementStatus
    bill = r.bill or _paid_bill(r, res, user)
    account = bill.account
    case = case_open(kind=wf.ABATEMENT, title=f"Abatement of bill {bill.number} ({r.parcel.address}) — converted",
                     acting_user=user, year=r.filed.year)
    case.filed_on = r.filed
    case.save(update_fields=["filed_on"])
    owner_party(case, account.billed_owner)
    ab = Abatement.objects.create(case=case, bill=bill, grounds=[AbatementGround.OTHER],
                                  statement="Converted from the old office's records (issue 32)",
                                  amount_requested=r.requested, disposition=r.disposition)
    _clock(case, wf.ABATEMENT_DECISION, r.filed, user)
    made = [case.number]
    if r.decided:
        part = r.status == A.GRANTED_PART
        case_transition(case=case, to=r.status, acting_user=user, on=r.decided,
                        why="Converted: the DPW's written decision in the old office (Ch. 295 Art. IV billing ¶E)",
                        data={"amount": fmt(r.granted) if part else None})
        ab.decision = Decision.GRANT_PART if part else Decision.DENY
        ab.decided_on, ab.amount_granted, ab.reasons = r.decided, r.granted if part else None, \
            "Decided in the old office (converted, issue 32)"
        ab.save(update_fields=["decision", "decided_on", "amount_granted", "reasons"])
        if part:  # abated there, and refunded or credited there: on the bill, not on the balance
            inst = bill.installments.order_by("-seq").first()
            e = dict(account=account, bill=bill, installment=inst, component=Component.PRINCIPAL,
                     effective_on=r.decided, created_by=actor_or_none(user))
            LedgerEntry.objects.create(kind=EntryKind.ABATEMENT, amount=-r.granted,
                                       memo=f"Abatement {case.number} (granted in part in the old office)", **e)
            LedgerEntry.objects.create(kind=EntryKind.CONVERSION, amount=r.granted,
                                       memo=f"Abatement {case.number}: {r.disposition}ed in the old system", **e)
        _clock(case, wf.APPEAL_FILING, r.decided, user)
    if r.appeal:
        made.append(appeal_convert(parent=case, subject=AppealSubject.ABATEMENT, decided=r.decided, appeal=r.appeal,
                                   notice=r.notice, hearing_at=r.hearing_at, place=r.place, bill=bill,
                                   owner=account.billed_owner, user=user, why=f"{name} row {r.n}"))
    audit_record(actor=user, action="golive.abatement", obj=ab, why=f"{name} row {r.n}")
    return made


def abatements_convert(*, path: str | Path, acting_user, apply: bool = False,
                       source: str | None = None) -> CasesResult:
    """Convert the old office's open abatements and their appeals (see the module). Dry run unless ``apply``."""
    from stormwater.gis.assessor import read_source
    from stormwater.receivables.selectors import closed_through
    from stormwater.utility.selectors import resolution_in_force

    t = read_source(str(path))
    name = source or t.name
    problems = list(t.problems)
    low: dict[str, str] = {}
    norm = {_norm(c): c for c in t.columns}
    aliases = {**ALIASES, **lien_cases.ALIASES}
    for target in (*TARGETS, *lien_cases.TARGETS):
        hit = next((norm[a] for a in (target, *aliases.get(target, ())) if a in norm), None)
        if hit:
            low[target] = hit
    # The rows of §16E abatements of charges committed to the tax lien (appeals ¶B) go their own way (lien_cases).
    liens = [lien_cases.is_lien(r.get(low["subject"], "")) if "subject" in low else False for r in t.rows]
    t_ab = replace(t, rows=[r for r, x in zip(t.rows, liens) if not x],
                   row_numbers=[n for n, x in zip(t.row_numbers, liens) if not x])
    t_lien = replace(t, rows=[r for r, x in zip(t.rows, liens) if x],
                     row_numbers=[n for n, x in zip(t.row_numbers, liens) if x])
    missing = [c for c in REQUIRED if c not in low and (t_ab.rows or c in lien_cases.REQUIRED)]
    if "account" not in low and "parcel_id" not in low and (t_ab.rows or not t_lien.rows):
        missing.insert(0, "account or parcel_id")
    if missing:
        problems.append(error("missing_column", name, f"the file has no column {', '.join(missing)} (columns: "
                              f"{', '.join(TARGETS)}; a §16E row: {', '.join(lien_cases.TARGETS)})"))
        refuse_on_errors(name, problems)
    today = timezone.localdate()
    bad: list[str] = []
    todo, unchanged = _plan(t_ab, low, name, today, bad)
    lien_todo, lien_unchanged = lien_cases.lien_plan(t_lien, low, today, bad)
    unchanged += lien_unchanged
    through = closed_through()
    resolutions: dict[int, RateResolution] = {}
    earliest = RateResolution.objects.order_by("effective_from", "id").first()
    for r in todo:
        if through is not None and r.granted and r.decided <= through:
            bad.append(f"row {r.n} ({low['decided_on']}): the books here are closed through {through}: the part "
                       f"abated in the old office keeps its day {r.decided}")
        if r.bill is None:
            if through is not None and r.issue <= through:
                bad.append(f"row {r.n} ({low['issue_date']}): the books here are closed through {through}: the "
                           f"paid bill's entries keep their day {r.issue} (convert before closing a period)")
            res = resolution_in_force(date(r.fiscal_year - 1, 7, 1)) or earliest
            if res is None:
                problems.append(error("no_resolution", name, "no rate resolution is entered: enter the Select "
                                      "Board's resolution first (the paid bills' conversion run needs it)"))
                break
            resolutions[r.fiscal_year] = res
    why_bad = "abatements and appeals that cannot be converted: nothing converted"
    refuse_on_errors(name, problems)  # the rows refused so far are listed with the acts' refusals below
    res = CasesResult(rows=len(t.rows), unchanged=unchanged, problems=problems, dry_run=not apply)
    try:
        with transaction.atomic():
            for r in todo:
                res.cases += _convert(r, resolutions.get(r.fiscal_year), acting_user, name)
                res.created += 1
            # Through the relief acts, so each act's refusal is listed too; nothing is kept when any refuses.
            made = lien_cases.lien_convert_all(lien_todo, acting_user, name, low, bad)
            res.cases += made
            res.created += len(made)
            if bad or not apply:
                raise _Rollback
    except _Rollback:
        pass
    if bad:
        res.created, res.cases = 0, []
        problems.append(error("bad_row", name, why_bad, bad))
    refuse_on_errors(name, problems)
    return res
