"""What the acts of a bill run share: states, messages, the fiscal year, the installment schedule, the result."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from django.db.models import Sum

from stormwater.rules.calendar import add_calendar_days, add_months
from stormwater.rules.money import ZERO, fmt, round_cents

from ..books import closed_through
from ..models import BillRun, BillRunChunk, RunState

# Ch. 295 Art. IV ¶B: "Payment shall be due 30 days after the issue date of the stormwater bill."
DUE_DAYS = 30
CHUNK = 5000  # parcels per slice: a short transaction (well under a second), flat memory

ERR_PERIOD = "The period must start before it ends."
ERR_NOT_PROOF = "Run {run} is {state}: only a proof waiting for approval can be approved."
ERR_MAY_NOT_APPROVE = "Only a Collector or the DPW Director may approve a bill run (run {run})."
ERR_MAY_NOT_ISSUE = ("Only a Collector or the DPW Director may issue a bill run; staff prepare a proof for them to "
                     "approve.")
ERR_MAY_NOT_VOID = "Only a Collector or the DPW Director may void a bill run (run {run})."
ERR_SECOND_APPROVER = ("{user} prepared this proof: the town's configuration requires another Collector or "
                       "Director to approve it (bill_run_second_approver).")
ERR_ONE_STEP_SECOND_APPROVER = ("The town's configuration requires a second person to approve a bill run "
                                "(bill_run_second_approver): prepare a proof (\"proof\": true) and have another "
                                "Collector or Director approve it.")
ERR_NOT_ISSUED = "Run {run} is {state}: only an issued run can be voided."
ERR_MAILED = ("The bills of run {run} were mailed{how}: a mailed bill is corrected by an abatement or a reversing "
              "entry, not by voiding the run.")
ERR_ACTIVITY = ("Run {run} has activity beyond its charges ({what}, e.g. on bill {bill}): reverse or resolve it "
                "first; a run with payments or cases is not voided.")
ERR_CLOSED = ("The books are closed through {through}: run {run} issued {day} can no longer be voided (its "
              "reversing entries would fall in a closed period).")
ERR_REASON = "reason: say why the run is voided"
ERR_NOT_OPEN = "Run {run} is {state}: only a proof (or one being prepared) can be discarded."
ERR_MAIL_STATE = "Run {run} is {state}: only an issued run is mailed."
MSG_OPEN_PROOF = ("A proof of {label} (run {run}, {state}) is open: approve or discard it on the bill run page "
                  "before issuing the period again.")

TRANSITIONS: dict[str, frozenset[str]] = {
    RunState.PREPARING: frozenset({RunState.PROOF, RunState.DISCARDED}),
    RunState.PROOF: frozenset({RunState.ISSUED, RunState.DISCARDED}),
    RunState.ISSUED: frozenset({RunState.VOIDED}),
    RunState.VOIDED: frozenset(),
    RunState.DISCARDED: frozenset(),
}

Progress = Callable[[int, int], None] | None
Log = Callable[[str], None] | None


class BillingError(Exception):
    """A bill run that cannot go ahead; the message says why."""


ERR_ISSUE_CLOSED = ("issue_date: {day} is in a closed period (the books are closed through {through}): the run's "
                    "charges would be posted inside it. Choose an issue date after {through}.")
ERR_ISSUE_WINDOW = ("issue_date: {day} is outside the window for {label} (period {start} – {end}): its bills may be "
                    "issued from {earliest} through {latest} (town configuration bill_issue_months_before_period = "
                    "{before}, bill_issue_months_after_period = {after}).")


def issue_date_refusal(*, period_label: str, period_start: date, period_end: date, issue_date: date) -> str | None:
    """Why a run of the period may not be issued on ``issue_date``, or None (issue 17).

    - Closed books (``utility.books``: receivables.PeriodClose): a run's charges are posted effective on its issue date, and
      nothing is posted on or before the day the books are closed through.
    - The town's window around the period (``TownConfig.bill_issue_months_before_period`` / ``…_after_period``;
      Ch. 295 Art. IV ¶B bills the fee for its period, the window is the town's policy).
    """
    from stormwater.townconfig import town_config

    through = closed_through()
    if through and issue_date <= through:
        return ERR_ISSUE_CLOSED.format(day=issue_date, through=through)
    cfg = town_config()
    earliest = add_months(period_start, -cfg.bill_issue_months_before_period)
    latest = add_months(period_end, cfg.bill_issue_months_after_period)
    if not earliest <= issue_date <= latest:
        return ERR_ISSUE_WINDOW.format(day=issue_date, label=period_label, start=period_start, end=period_end,
                                       earliest=earliest, latest=latest, before=cfg.bill_issue_months_before_period,
                                       after=cfg.bill_issue_months_after_period)
    return None


def fiscal_year(fy: int) -> tuple[str, date, date]:
    """Massachusetts fiscal year FYnnnn: July 1 of the year before to June 30."""
    return f"FY{fy}", date(fy - 1, 7, 1), date(fy, 6, 30)


def installment_schedule(issue_date: date, n: int) -> list[tuple[date, date]]:
    """(issue, due) of each of ``n`` installments spread evenly over the year from ``issue_date``.

    Due 30 days after each issue (Ch. 295 Art. IV ¶B); a due date on a weekend or Massachusetts
    legal holiday rolls to the next business day (MGL c.4 §9).
    """
    out = []
    for k in range(n):
        issued = add_months(issue_date, k * 12 // n)
        out.append((issued, add_calendar_days(issued, DUE_DAYS)))
    return out


@dataclass
class BillRunResult:
    run: BillRun | None
    bills: int = 0
    total: Decimal = ZERO
    already_billed: int = 0
    exempt: int = 0
    no_fee: int = 0
    problems: list[tuple[str, str]] = field(default_factory=list)  # (parcel id, message)
    message: str = ""

    def as_json(self) -> dict:
        out = {"run_id": self.run.pk if self.run else None, "bills": self.bills, "total": fmt(self.total),
               "already_billed": self.already_billed, "exempt": self.exempt, "no_fee": self.no_fee,
               "problems": [{"parcel_id": p, "message": m} for p, m in self.problems], "message": self.message}
        if self.run is not None:
            out["state"] = self.run.state
        return out


def _set_state(run: BillRun, new: str) -> None:
    if new not in TRANSITIONS[run.state]:
        raise BillingError(f"Run {run.pk} cannot go from {run.get_state_display().lower()} to {new}.")
    run.state = new


def _locked(run: BillRun | int) -> BillRun | None:
    """The run, locked for this transaction (PostgreSQL row lock; SQLite holds the write lock already)."""
    return BillRun.objects.select_for_update().filter(pk=getattr(run, "pk", run)).first()


def _current(run: BillRun) -> BillRun | None:
    """The run as it is now (another process may have moved it on, or removed an empty one)."""
    return BillRun.objects.select_related("resolution").filter(pk=run.pk).first()



def _counts(run: BillRun) -> dict:
    return BillRunChunk.objects.filter(run=run).aggregate(
        parcels=Sum("parcels"), bills=Sum("bills"), total=Sum("total"), exempt=Sum("exempt"), no_fee=Sum("no_fee"),
        already_billed=Sum("already_billed"), problems=Sum("problems"))


def _result(run: BillRun | None, counts: dict, problems: list[tuple[str, str]], message: str) -> BillRunResult:
    return BillRunResult(run=run, bills=counts.get("bills") or 0, total=round_cents(counts.get("total") or ZERO),
                         already_billed=counts.get("already_billed") or 0, exempt=counts.get("exempt") or 0,
                         no_fee=counts.get("no_fee") or 0, problems=problems, message=message)


def run_problems(run: BillRun) -> list[tuple[str, str]]:
    return list(run.exceptions.order_by("parcel__parcel_id").values_list("parcel__parcel_id", "message"))


