"""Open cases at go-live (issue 32): **permit applications by status** with their filed, complete and decision dates
and their tolls (Ch. 380 § 380-10), moved through the permits domain's own acts (``permits.services``) on those days,
so the 42-day action clock (§ 380-10 I(2)), its tolls while the application was incomplete (§ 380-10 D) or waiting
on requested information (§ 380-10 E), the cure date and the two years to start an issued permit (§ 380-10 K) compute
as if the file had been kept here.

The file (CSV or .xlsx through the pipeline; names case-insensitive, aliases in ``ALIASES``), one row per permit file:
``parcel_id``, ``status`` (filed, incomplete, under review, information requested, approved, approved with conditions,
disapproved: the permit workflow's statuses by code or label), ``filed_on``; as the file went: ``incomplete_on`` and
``cure_by`` (and ``items_received_on`` once the items came), ``complete_on``, ``info_requested_on`` (and
``info_received_on``, with ``info_items``), ``decided_on`` (with ``findings``, ``standards`` and, approved with
conditions, ``conditions`` separated by ``;``); optional ``disturbance_sqft``, ``site_address``, ``description``.

The acts are the permits domain's own (their preconditions refuse what they refuse, named by row and field): opened,
filed (``permit_file(notify=False)``: the old office sent the § 380-10 F notices), found incomplete (the cure clock,
the action clock tolled), the items received (the checklist confirmed that day: "received in the old office"), found
complete, information requested and received (tolled again), decided (the decision kept, the start clock). Refused,
naming the row and field: an unknown parcel, a date that is not a date or is in the future, dates out of order (filed ≤
incomplete ≤ items received ≤ complete ≤ information requested ≤ received ≤ decided), a status the workflow cannot
reach from those dates (the table of ``permits.workflow``), a status not converted (draft, consultant fee or appeal,
denied, withdrawn, closed: the file is entered on its page). Nothing is applied when any row is refused; re-running
the same file changes nothing (a permit file on that parcel filed that day).

The outside consultant and its special account (MGL c.44 §53G; § 380-10 G(2)), waivers (§ 380-8) and extensions of the
action clock (§ 380-10 I(2)) come on the same row, each through its own act on its day (``permit_more``); all the acts
of a row run in date order.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path

from django.utils import timezone

from stormwater.audit.services import audit_record
from stormwater.parcels.models import Parcel

from . import permit_more as more
from .cases import CasesResult
from .export import REFUSED, _norm, parse_date, row_status
from .rows import RowRefused, apply_rows, case_rows, read_case_file

DATES = ("filed_on", "incomplete_on", "cure_by", "items_received_on", "complete_on", "info_requested_on",
         "info_received_on", "decided_on")
ORDER = ("filed_on", "incomplete_on", "items_received_on", "complete_on", "info_requested_on", "info_received_on",
         "decided_on")
TARGETS = ("parcel_id", "status", *DATES, "incomplete_items", "info_items", "findings", "standards", "conditions",
           "disturbance_sqft", "site_address", "description", "fee_receipt", *more.TARGETS)
ALIASES = {"parcel_id": ("parcel", "map_block_lot", "loc_id"), "filed_on": ("filed", "filing_date"),
           "incomplete_on": ("incomplete",), "items_received_on": ("items_received", "cured_on"),
           "complete_on": ("complete", "completeness_date", "accepted_on"),
           "info_requested_on": ("information_requested_on", "info_requested"),
           "info_received_on": ("information_received_on", "info_received"),
           "decided_on": ("decided", "decision_date"), "disturbance_sqft": ("disturbance", "disturbed_sqft"),
           "site_address": ("address",), **more.ALIASES}
REQUIRED = ("parcel_id", "status", "filed_on")
# The step each date is in the workflow: the status it moves the file to (permits.workflow.TRANSITIONS).
STEP = {"filed_on": "filed", "incomplete_on": "incomplete", "items_received_on": "filed", "complete_on": "under_review",
        "info_requested_on": "info_requested", "info_received_on": "under_review"}
# An illegal step from this status lacks this date (§ 380-10 D: no review until complete; E: information outstanding).
MISSING = {"incomplete": ("items_received_on", "found incomplete and not cured: give the day the items came in "
                                               "(§ 380-10 D)"),
           "info_requested": ("info_received_on", "information requested and not received: give the day it came in "
                                                  "(§ 380-10 E)"),
           "filed": ("complete_on", "no review or decision until the application is determined complete (§ 380-10 D)")}


def _statuses():
    from stormwater.permits import workflow as wf

    S = wf.Status
    converted = (S.FILED, S.INCOMPLETE, S.UNDER_REVIEW, S.INFO_REQUESTED, S.CONSULTANT_FEE_DUE, S.APPROVED,
                 S.APPROVED_WITH_CONDITIONS, S.DISAPPROVED)
    names = {}
    for s in converted:
        names.update({s.value: s.value, _norm(s.label): s.value})
    names.update({"under_review": S.UNDER_REVIEW.value, "complete": S.UNDER_REVIEW.value,
                  "information_requested": S.INFO_REQUESTED.value, "approved_with_conditions":
                  S.APPROVED_WITH_CONDITIONS.value, "consultant_fee_due": S.CONSULTANT_FEE_DUE.value})
    other = {n for s in S if s not in converted for n in (s.value, _norm(s.label))}
    return names, other


@dataclass
class _Row:
    n: int
    parcel: Parcel
    status: str
    days: dict
    get: dict
    more: dict


def _split(text: str) -> list[str]:
    return [x.strip() for x in text.replace("\n", ";").split(";") if x.strip()]


def _check(get, refuse, today: date, names, other) -> dict | None:
    """The row's days, or None after refusing what contradicts the rules (each naming the row and field)."""
    from stormwater.permits import workflow as wf

    days = {}
    for c in DATES:
        days[c] = parse_date(get(c)) if get(c) else None
        if get(c) and days[c] is None:
            refuse(c, f"{get(c)!r} is not a date")
        elif days[c] and days[c] > today and c != "cure_by":
            refuse(c, f"{days[c]} is in the future")
    extra = more.check(get, refuse, today, days)
    for c in REQUIRED:
        if not get(c):
            refuse(c, "required")
    status = row_status(get, refuse, known=names, not_converted=other,
                        why_not_converted="not converted (a draft, a consultant selection under appeal, a denied, "
                                          "withdrawn or closed file): enter it on the permit's page",
                        why_unknown="is not a status of the permit workflow (§ 380-10)")
    if status is REFUSED:
        return None
    given = [c for c in ORDER if days[c]]
    for a, b in zip(given, given[1:]):
        if days[b] < days[a]:
            refuse(b, f"dates out of order: {b.replace('_', ' ')} {days[b]} before {a.replace('_', ' ')} {days[a]}")
    if days["incomplete_on"] and not days["cure_by"] and not get("cure_by"):
        refuse("cure_by", "required: the Director's date for the missing items (§ 380-10 D)")
    for later, earlier in (("items_received_on", "incomplete_on"), ("info_received_on", "info_requested_on"),
                           ("cure_by", "incomplete_on")):
        if days[later] and not days[earlier]:
            refuse(later, f"given without {earlier}")
    if status is None or days["filed_on"] is None:
        return None
    # The path the dates take through the workflow's table, to the status the row says.
    machine = wf.PERMIT_MACHINE
    at = "filed"
    for c in ORDER[1:]:
        if not days[c]:
            continue
        to = STEP.get(c) or (status if status in (wf.Status.APPROVED, wf.Status.APPROVED_WITH_CONDITIONS,
                                                 wf.Status.DISAPPROVED) else None)
        if to is None:
            refuse("decided_on", f"a decision's day, but the status is {get('status')!r}")
            return None
        if not machine.allowed(at, to):
            col, why = MISSING.get(at, ("status", f"the workflow cannot go from {at} to {to}"))
            refuse(col, why)
            return None
        at = to
    if more.fee_due(days) and at == wf.Status.UNDER_REVIEW:  # the consultant's fee requested, not paid (G(2)(d))
        at = wf.Status.CONSULTANT_FEE_DUE
    if at != status:
        if status in (wf.Status.APPROVED, wf.Status.APPROVED_WITH_CONDITIONS, wf.Status.DISAPPROVED):
            refuse("decided_on", f"required: the day of the written decision ({get('status')})")
        else:
            refuse("status", f"{get('status')!r}, but the dates given leave the file {machine.labels[at]!r}")
        return None
    return {"status": status, "days": days, "more": extra}


def _convert(r: _Row, user) -> str:
    """One file through the permits domain's acts on its days (refusals raised as they come)."""
    from stormwater.cases.services import TransitionError
    from stormwater.permits import services as ps
    from stormwater.permits import workflow as wf
    from stormwater.permits.models import ChecklistItem, DecisionKind

    d, g = r.days, r.get
    owner = r.parcel.owner
    try:
        sqft = Decimal(g.get("disturbance_sqft") or "0")
    except InvalidOperation:
        raise ps.PermitError(f"{g['disturbance_sqft']!r} is not square feet", field="disturbance_sqft") from None
    app = ps.permit_application_start(
        acting_user=user, owner_name=owner.name if owner else "", owner=owner, parcels=[r.parcel],
        site_address=g.get("site_address") or r.parcel.address, disturbance_sqft=sqft,
        description=g.get("description") or "Converted from the old office's records (issue 32)")

    def items_in(on: date) -> None:
        for key in ChecklistItem.objects.filter(application=app, satisfied_on__isnull=True,
                                                not_applicable_reason="").exclude(key="fees").values_list("key",
                                                                                                          flat=True):
            ps.checklist_confirm(application=app, key=key, acting_user=user, on=on,
                                 note="received in the old office (converted)")

    def file() -> None:
        # A filing takes the whole package and its fees (issue 30: § 380-10 B(1), G(1)): the old office filed it so.
        items_in(d["filed_on"])
        ps.permit_fees_paid(application=app, paid_on=d["filed_on"], receipt=g.get("fee_receipt") or "old office",
                            acting_user=user)
        ps.permit_file(application=app, acting_user=user, on=d["filed_on"], notify=False)

    def decide() -> None:
        if r.status != wf.Status.DISAPPROVED:  # the old office's review, every plan item provided (issue 30 gate)
            from stormwater.workbench import catalog
            from stormwater.workbench.services import item_findings_record

            item_findings_record(application=app, acting_user=user,
                                 findings=[{"para": e.para, "finding": "provided",
                                            "comment": "reviewed in the old office (converted)"}
                                           for e in catalog.ITEMS])
        kind = {wf.Status.APPROVED: DecisionKind.APPROVE, wf.Status.DISAPPROVED: DecisionKind.DISAPPROVE,
                wf.Status.APPROVED_WITH_CONDITIONS: DecisionKind.APPROVE_WITH_CONDITIONS}[r.status]
        ps.permit_decide(application=app, kind=kind, acting_user=user, on=d["decided_on"],
                         findings=g.get("findings") or "Decided in the old office: see its written decision "
                                                       "(converted, issue 32)",
                         standards=_split(g.get("standards", "")) or ["the old office's written decision"],
                         conditions=_split(g.get("conditions", "")))

    # Every act on its day, in the workflow's order on one day (rank); the file's own steps keep their column to
    # the act's field (None), the consultant's, the waiver's and the extension's name theirs (permit_more).
    acts = [(d["filed_on"], 0, None, file)]
    if d["incomplete_on"]:
        # what the old office found inadequate in the package (§ 380-10 D: found incomplete with a note)
        acts.append((d["incomplete_on"], 1, None, lambda: ps.permit_determine_incomplete(
            application=app, cure_by=d["cure_by"], acting_user=user, on=d["incomplete_on"],
            note=g.get("incomplete_items") or "Found incomplete in the old office (converted, issue 32)")))
    if d["items_received_on"]:
        acts.append((d["items_received_on"], 2, None, lambda: ps.permit_items_received(
            application=app, acting_user=user, on=d["items_received_on"], note="in the old office (converted)")))
    if d["complete_on"]:
        acts.append((d["complete_on"], 3, None, lambda: ps.permit_determine_complete(
            application=app, acting_user=user, on=d["complete_on"])))
    if d["info_requested_on"]:
        acts.append((d["info_requested_on"], 8, None, lambda: ps.permit_request_information(
            application=app, acting_user=user, on=d["info_requested_on"],
            items=g.get("info_items") or "As requested by the old office (converted)")))
    if d["info_received_on"]:
        acts.append((d["info_received_on"], 9, None, lambda: ps.permit_information_received(
            application=app, acting_user=user, on=d["info_received_on"],
            response="Received in the old office (converted)")))
    if d["decided_on"]:
        acts.append((d["decided_on"], 14, None, decide))
    acts += more.steps(app, d, g, r.more, user)
    for _day, _rank, column, act in sorted(acts, key=lambda a: (a[0], a[1])):
        if column is None:
            act()
            continue
        try:
            act()
        except (TransitionError, ps.PermitError, ValueError) as e:
            if isinstance(e, RowRefused):
                raise
            field = more.FIELDS.get(getattr(e, "field", None) or "")
            raise RowRefused(str(e), field or column) from None
    audit_record(actor=user, action="golive.permit", obj=app, why=f"row {r.n}")
    return app.case.number


def permits_convert(*, path: str | Path, acting_user, apply: bool = False, source: str | None = None) -> CasesResult:
    """Convert the old office's open permit files (see the module). Dry run unless ``apply``."""
    from stormwater.cases.services import TransitionError
    from stormwater.permits.acts import PermitError
    from stormwater.permits.models import PermitApplication

    t, name, problems, low = read_case_file(path, source=source, targets=TARGETS, aliases=ALIASES, required=REQUIRED)
    today = timezone.localdate()
    names, other = _statuses()
    col = lambda c: low.get(c, c)  # noqa: E731
    parcels = {p.parcel_id: p for p in Parcel.objects.filter(
        parcel_id__in=[r.get(low["parcel_id"], "").strip() for r in t.rows]).select_related("owner")}
    bad: list[str] = []
    todo: list[_Row] = []
    res = CasesResult(rows=len(t.rows), problems=problems, dry_run=not apply)
    seen: set = set()
    for n, vals, get, refuse in case_rows(t, low, bad):
        p = parcels.get(get("parcel_id"))
        if get("parcel_id") and p is None:
            refuse("parcel_id", f"no parcel {get('parcel_id')!r}")
        v = _check(get, refuse, today, names, other)
        if v is None or p is None:
            continue
        key = (p.pk, v["days"]["filed_on"])
        if key in seen:
            refuse("filed_on", "the same parcel and filing day on an earlier row")
            continue
        seen.add(key)
        prior = PermitApplication.objects.filter(parcels=p, case__filed_on=v["days"]["filed_on"]).first()
        if prior is not None:
            if v["days"]["decided_on"] and prior.decided_on and prior.decided_on != v["days"]["decided_on"]:
                refuse("decided_on", f"converted before ({prior.case.number}) with other figures: decided "
                                     f"{prior.decided_on}")
            else:
                res.unchanged += 1
            continue
        todo.append(_Row(n=n, parcel=p, status=v["status"], days=v["days"], get=vals, more=v["more"]))
    # Every row the checks passed goes through the acts (the consultant's, the waiver's, the extension's refusals are
    # RowRefused naming their column), then all is rolled back unless applying with no row refused.
    return apply_rows(todo, lambda r: _convert(r, acting_user), res=res, bad=bad, col=col, apply=apply, name=name,
                      problems=problems, what="permit files", refusals=(TransitionError, PermitError, ValueError))
