"""Open cases at go-live (issue 32): **construction files with the last inspection** (Ch. 380 § 380-16), moved through
the construction domain's own acts (``construction.services``) on their real days, so the erosion-control schedule —
inspected before the start of construction, then at the frequencies of Section 4 of EPA's 2022 Construction General
Permit (§ 380-16 C(4)(b)[1]; ``rules.inspections``: every 7 days, CGP 4.2(a); every 14 days and after a storm,
4.2(b); every 7 days and after a storm on sensitive waters, 4.3.1) — gives the next inspection due as if the file had
been kept here (``construction.selectors.next_due``).

The file (CSV or .xlsx through the pipeline; names case-insensitive, aliases in ``ALIASES``), one row per file:
``permit`` (the permit's case number here: convert the permits first, ``--kind permits``), ``opened_on``; optional
``meeting_on`` (the pre-construction meeting, § 380-16 A; blank: the Director required none), ``pre_start_inspection_on``
(the erosion-control inspection before the start, § 380-16 C(4)(b)[1]), ``plan_on_site_on`` (§ 380-16 B; default the
start), ``started_on`` (land disturbance began: the file is under way and § 380-10 K's two years to start are met),
``last_inspection_on`` with ``last_inspection_kind`` (``routine``, the default once started, or ``pre start``) and
``last_inspection_result`` (``compliant``, the default, or ``violations`` with ``corrective_steps``), ``frequency``
(``7day``, the default, or ``14day_storm``), ``sensitive_waters`` (yes/no), ``inspector_name``,
``inspector_credentials``, ``weather``, ``precipitation_in``.

The acts, each on its day: the file opened (``project_open(on=)``), the meeting, the report of the inspection before
the start, the signed plan confirmed on the site, the start (``construction_start``: its own checks), the report of the
last routine inspection (``inspection_report_file(notify=False)``: the reports went to the permittee from the old
office). Refused, naming the row and field: an unknown permit or one with a file here already that says otherwise, a
date that is not a date or is in the future, dates out of order (opened ≤ meeting ≤ inspection before the start ≤ plan on
site ≤ start ≤ last routine inspection), a file opened before its permit was issued (§ 380-10 I, K), a start without
the inspection before it, a routine inspection before the start or without one, violations without the steps to
correct them (§ 380-16 C(4)(f)[1][h]), and whatever the acts refuse (a permit not approved, a start whose inspection
found violations …). Nothing is applied when any row is refused; re-running the same file changes nothing (the file of
that permit, with the same start and last inspection, is ``unchanged``).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time
from decimal import Decimal, InvalidOperation
from pathlib import Path

from django.utils import timezone

from stormwater.audit.services import audit_record

from .cases import CasesResult
from .export import _norm
from .rows import RowRefused, apply_rows, case_rows, dates_of, in_order, read_case_file

DATES = ("opened_on", "meeting_on", "pre_start_inspection_on", "plan_on_site_on", "started_on", "last_inspection_on")
ORDER = ("opened_on", "meeting_on", "pre_start_inspection_on", "plan_on_site_on", "started_on")
TARGETS = ("permit", *DATES, "last_inspection_kind", "last_inspection_result", "corrective_steps", "frequency",
           "sensitive_waters", "inspector_name", "inspector_credentials", "weather", "precipitation_in")
ALIASES = {"permit": ("permit_number", "permit_no", "permit_case"), "opened_on": ("opened", "file_opened_on"),
           "meeting_on": ("preconstruction_meeting_on", "meeting"),
           "pre_start_inspection_on": ("pre_start_inspection", "inspection_before_start_on"),
           "started_on": ("start_date", "started", "construction_start"),
           "last_inspection_on": ("last_inspection", "last_inspected_on"),
           "last_inspection_kind": ("inspection_kind", "last_inspection_type"),
           "last_inspection_result": ("inspection_result", "result", "evaluation"),
           "frequency": ("inspection_frequency",), "precipitation_in": ("precipitation", "rain_in")}
REQUIRED = ("permit", "opened_on")
# § 380-16 C(4)(b)[1]: the inspection before the start, then the routine ones (CGP 2022 Part 4.2).
KINDS = {"pre_start": "pre_start", "erosion_pre_start": "pre_start", "before_start": "pre_start",
         "routine": "routine", "erosion_routine": "routine", "erosion_control": "routine"}
RESULTS = {"compliant": "compliant", "in_compliance": "compliant", "pass": "compliant",
           "violations": "violations", "violation": "violations", "fail": "violations"}
FREQUENCIES = {"7day": "7day", "7": "7day", "7_days": "7day", "every_7_days": "7day",
               "14day_storm": "14day_storm", "14": "14day_storm", "14_days": "14day_storm",
               "14_days_and_storms": "14day_storm", "every_14_days_and_storms": "14day_storm"}
YES, NO = {"yes", "y", "true", "1", "x"}, {"", "no", "n", "false", "0"}
CONVERTED = "as recorded in the old office's file (converted, issue 32)"


@dataclass
class _Row:
    n: int
    permit: object
    days: dict
    last_kind: str | None
    result: str
    frequency: str
    sensitive: bool
    get: dict


def _check(get, refuse, today: date, permit) -> dict | None:
    """The row's facts, or None after refusing what contradicts the rules (each naming the row and field)."""
    days = dates_of(get, refuse, DATES, today)
    for c in REQUIRED:
        if not get(c):
            refuse(c, "required")
    kind = KINDS.get(_norm(get("last_inspection_kind"))) if get("last_inspection_kind") else None
    if get("last_inspection_kind") and kind is None:
        refuse("last_inspection_kind", f"{get('last_inspection_kind')!r} is not converted (routine or pre start: the "
                                       "erosion-control schedule, § 380-16 C(4)(b)[1]; others on the file's page)")
        return None
    result = RESULTS.get(_norm(get("last_inspection_result")) or "compliant")
    if result is None:
        refuse("last_inspection_result", f"{get('last_inspection_result')!r} is not an evaluation (compliant or "
                                         "violations, § 380-16 C(4)(f)[1][g])")
    freq = FREQUENCIES.get(_norm(get("frequency")) or "7day")
    if freq is None:
        refuse("frequency", f"{get('frequency')!r} is not a frequency of CGP 2022 Part 4.2 (7day, or 14day_storm)")
    if _norm(get("sensitive_waters")) not in YES | NO:
        refuse("sensitive_waters", f"{get('sensitive_waters')!r}: yes or no (CGP 2022 Part 4.3.1)")
    last, started = days["last_inspection_on"], days["started_on"]
    if last and kind is None:
        kind = "routine" if started else "pre_start"
    if kind and not last:
        refuse("last_inspection_on", "required with last_inspection_kind")
        return None
    if kind == "pre_start":
        if days["pre_start_inspection_on"] and days["pre_start_inspection_on"] != last:
            refuse("last_inspection_on", f"the last inspection {last} is the one before the start, but "
                                         f"pre_start_inspection_on says {days['pre_start_inspection_on']}")
            return None
        days["pre_start_inspection_on"] = last
    if result == "violations" and last and not get("corrective_steps"):
        refuse("corrective_steps", "required: the steps to be taken to correct the violations (§ 380-16 "
                                   "C(4)(f)[1][h])")
    if result == "violations" and kind == "pre_start" and started:
        refuse("last_inspection_result", "the start follows an inspection finding the controls in compliance "
                                         "(§ 380-16 C(4)(b)[1])")
    if started and not days["pre_start_inspection_on"]:
        refuse("pre_start_inspection_on", "required: the erosion and sedimentation controls are inspected before the "
                                          "start of construction (§ 380-16 C(4)(b)[1])")
    if days["plan_on_site_on"] and not started:
        refuse("plan_on_site_on", "given without started_on")
    if not in_order(days, ORDER, refuse):
        return None
    if kind == "routine":
        if not started:
            refuse("last_inspection_on", "a routine inspection follows the start of construction: give started_on "
                                         "(§ 380-16 C(4)(b)[1])")
            return None
        if last < started:
            refuse("last_inspection_on", f"the last inspection {last} is before the start {started}: the routine "
                                         "inspections follow the start (§ 380-16 C(4)(b)[1]; a file's start "
                                         "comes after the inspection before it)")
            return None
    if permit is not None and days["opened_on"]:
        from stormwater.construction.base import ERR_BEFORE_PERMIT

        issued = permit.issued_on or permit.decided_on
        if issued and days["opened_on"] < issued:
            refuse("opened_on", ERR_BEFORE_PERMIT.format(what="day the construction file was opened",
                                                         day=days["opened_on"], number=permit.case.number,
                                                         issued=issued))
            return None
    if result is None or freq is None or not days["opened_on"]:
        return None
    return {"days": days, "kind": kind, "result": result, "freq": freq,
            "sensitive": _norm(get("sensitive_waters")) in YES}


def _noon(day: date) -> datetime:
    """The report's time: noon of its day (the old file gives the day), or now for one made today before noon (a
    report is never later than now, ``cases.filing.after_now``)."""
    return min(timezone.make_aware(datetime.combine(day, time(12))), timezone.now())


def _convert(r: _Row, user) -> str:
    """One file through the construction domain's acts on its days (an act's refusal raised with its column)."""
    from stormwater.cases.services import TransitionError
    from stormwater.construction import services as cs
    from stormwater.construction.services import ConstructionError, ReportInput

    d, g = r.days, r.get
    step = ["permit"]

    def report(kind: str, on: date, last, evaluation: str, steps: str):
        try:
            precip = Decimal(g.get("precipitation_in") or "0")
        except InvalidOperation:
            raise RowRefused(f"{g['precipitation_in']!r} is not inches", "precipitation_in") from None
        return ReportInput(kind=kind, inspected_at=_noon(on), location=r.permit.site_address,
                           inspector_name=g.get("inspector_name") or "The old office's inspector",
                           inspector_credentials=g.get("inspector_credentials") or CONVERTED,
                           last_inspection=last or "none", weather=g.get("weather") or "not recorded (converted)",
                           precipitation_24h_in=precip, evaluation=evaluation, corrective_steps=steps,
                           findings=f"Report of the old office, {CONVERTED}.")

    try:
        p = cs.project_open(permit=r.permit, acting_user=user, on=d["opened_on"],
                            preconstruction_required=bool(d["meeting_on"]), surety_required=False,
                            surety_not_required_reason="Converted from the old office (issue 32): a surety it holds "
                                                       "is entered on the file's page",
                            frequency=r.frequency, sensitive_waters=r.sensitive,
                            esc_inspector_name=g.get("inspector_name", ""),
                            esc_inspector_credentials=g.get("inspector_credentials", ""))
        if d["meeting_on"]:
            step[0] = "meeting_on"
            cs.preconstruction_meeting_record(project=p, held_on=d["meeting_on"], attendees=CONVERTED,
                                              acting_user=user)
        pre = d["pre_start_inspection_on"]
        if pre:
            step[0] = "last_inspection_on" if r.last_kind == "pre_start" else "pre_start_inspection_on"
            last_pre = r.last_kind == "pre_start"
            cs.inspection_report_file(project=p, acting_user=user, notify=False, report=report(
                "erosion_pre_start", pre, None, r.result if last_pre else "compliant",
                g.get("corrective_steps", "") if last_pre else ""))
        if d["started_on"]:
            step[0] = "plan_on_site_on" if d["plan_on_site_on"] else "started_on"
            cs.plan_on_site_confirm(project=p, on=d["plan_on_site_on"] or d["started_on"], acting_user=user)
            step[0] = "started_on"
            cs.construction_start(project=p, on=d["started_on"], acting_user=user)
        if r.last_kind == "routine":
            step[0] = "last_inspection_on"
            cs.inspection_report_file(project=p, acting_user=user, notify=False, report=report(
                "erosion_routine", d["last_inspection_on"], pre, r.result, g.get("corrective_steps", "")))
    except (ConstructionError, TransitionError) as e:
        raise RowRefused(str(e), step[0]) from None
    audit_record(actor=user, action="golive.construction", obj=p, why=f"row {r.n}")
    return p.case.number


def _same(prior, v) -> bool:
    """The file converted before says what this row says: the same start and the same last inspection."""
    d = v["days"]
    last = prior.inspections.filter(kind__in=("erosion_pre_start", "erosion_routine")).order_by("-inspected_at").first()
    last_day = timezone.localtime(last.inspected_at).date() if last else None
    return prior.started_on == d["started_on"] and last_day == (d["last_inspection_on"] or d["pre_start_inspection_on"])


def construction_convert(*, path: str | Path, acting_user, apply: bool = False,
                         source: str | None = None) -> CasesResult:
    """Convert the old office's open construction files (see the module). Dry run unless ``apply``."""
    from stormwater.cases.services import TransitionError
    from stormwater.construction.models import ConstructionProject
    from stormwater.construction.services import ConstructionError
    from stormwater.permits.models import PermitApplication

    t, name, problems, low = read_case_file(path, source=source, targets=TARGETS, aliases=ALIASES, required=REQUIRED)
    today = timezone.localdate()
    col = lambda c: low.get(c, c)  # noqa: E731
    permits = {a.case.number: a for a in PermitApplication.objects.filter(
        case__number__in=[r.get(low["permit"], "").strip() for r in t.rows]).select_related("case")}
    bad: list[str] = []
    todo: list[_Row] = []
    res = CasesResult(rows=len(t.rows), problems=problems, dry_run=not apply)
    seen: set = set()
    for n, vals, get, refuse in case_rows(t, low, bad):
        permit = permits.get(get("permit"))
        if get("permit") and permit is None:
            refuse("permit", f"no permit {get('permit')!r} (convert the permit files first: --kind permits)")
        v = _check(get, refuse, today, permit)
        if v is None or permit is None:
            continue
        if permit.pk in seen:
            refuse("permit", "the same permit on an earlier row")
            continue
        seen.add(permit.pk)
        prior = ConstructionProject.objects.filter(permit=permit).select_related("case").first()
        if prior is not None:
            if _same(prior, v):
                res.unchanged += 1
            else:
                refuse("permit", f"its construction file {prior.case.number} is here already with other figures")
            continue
        todo.append(_Row(n=n, permit=permit, days=v["days"], last_kind=v["kind"], result=v["result"],
                         frequency=v["freq"], sensitive=v["sensitive"], get=vals))
    return apply_rows(todo, lambda r: _convert(r, acting_user), res=res, bad=bad, col=col, apply=apply, name=name,
                      problems=problems, what="construction files", refusals=(ConstructionError, TransitionError))
