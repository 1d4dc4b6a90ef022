"""Reads of the workbench: the state of every checklist item of a permit file, the "at a glance"
panel, and the review summary. A permit file is reached only through
``permits.selectors.permit_get_for_user`` (views), so these take the application already reached."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from django.db.models import QuerySet
from django.http import Http404
from django.utils import timezone

from stormwater.accounts.roles import Perm
from stormwater.permits import workflow as pwf
from stormwater.permits.selectors import action_clock

from . import catalog
from .catalog import CHECKLISTS, ITEMS, SWPPP_PARA, Entry
from .models import Finding, ItemFinding, ItemWaiver, LidChecklistAnswer, PreApplicationMeeting, RaisedItem

NOT_REVIEWED = "not_reviewed"
REQUESTED = "requested"   # raised in an information request not yet answered
CLEARED = "cleared"       # raised, and the applicant's response is recorded
COVERED = "covered"       # § 380-13 A(2) items when the CGP SWPPP is submitted instead
OPEN = (Finding.DEFICIENT, Finding.NOT_PROVIDED)

LABELS = {NOT_REVIEWED: "Not reviewed", REQUESTED: "Requested from the applicant", CLEARED: "Cleared by the response",
          COVERED: "Covered by the CGP SWPPP", **dict(Finding.choices)}
ERR_MEETING_NOT_FOUND = "No such pre-application meeting."


@dataclass
class ItemState:
    entry: Entry
    finding: ItemFinding | None = None
    state: str = NOT_REVIEWED
    raised: RaisedItem | None = None
    waivers: list = field(default_factory=list)
    review_rows: list = field(default_factory=list)

    @property
    def label(self) -> str:
        if self.state == CLEARED:
            return f"Cleared by the response of {self.raised.request.responded_on:%b %-d, %Y}"
        if self.state == REQUESTED:
            return f"Requested {self.raised.request.requested_on:%b %-d, %Y}"
        return LABELS[self.state]

    @property
    def open_deficiency(self) -> bool:
        """Deficient or missing and not yet asked of the applicant."""
        return self.state in OPEN

    @property
    def reviewed(self) -> bool:
        return self.state != NOT_REVIEWED


@dataclass
class Glance:
    items: int
    not_reviewed: int
    open_deficiencies: int
    requested: int
    requests_outstanding: int
    clock: object  # cases.selectors.ClockView | None

    @property
    def days_left(self):
        return None if self.clock is None else self.clock.days_left


def _latest_review(case):
    from stormwater.review.models import Review

    return Review.objects.filter(case=case).order_by("-created_at", "-id").first()


def item_states(app, *, review=None) -> dict[str, ItemState]:
    """The current state of every item of the file, by paragraph (a handful of queries, any size)."""
    case = app.case
    latest: dict[str, ItemFinding] = {}
    for f in ItemFinding.objects.filter(case=case).select_related("document", "reviewer").order_by("at", "id"):
        latest[f.para] = f
    raised: dict[int, RaisedItem] = {r.finding_id: r for r in
                                     RaisedItem.objects.filter(case=case).select_related("request")}
    waivers: dict[str, list] = {}
    for w in ItemWaiver.objects.filter(case=case).select_related("waiver__case"):
        waivers.setdefault(w.para, []).append(w.waiver)
    rows = (review.results.get("standards", []) if review is not None else [])
    swppp = latest.get(SWPPP_PARA)
    covered = ({e.para for e in catalog.items_under("380-13 A(2)")}
               if swppp is not None and swppp.finding == Finding.PROVIDED else set())
    out = {}
    for e in ITEMS:
        st = ItemState(entry=e, waivers=waivers.get(e.para, []),
                       review_rows=[r for r in rows if any(r["key"].startswith(k) for k in e.review_keys)])
        f = latest.get(e.para)
        if f is None:
            st.state = COVERED if e.para in covered else NOT_REVIEWED
        else:
            st.finding, st.state = f, f.finding
            r = raised.get(f.pk)
            if r is not None and f.finding in OPEN:
                st.raised = r
                st.state = CLEARED if r.request.responded_on else REQUESTED
        out[e.para] = st
    return out


def item_history(app, para: str) -> list[ItemFinding]:
    return list(ItemFinding.objects.filter(case=app.case, para=para).select_related("document", "reviewer")
                .prefetch_related("raised__request").order_by("at", "id"))


def glance(app, states: dict[str, ItemState], *, today: date | None = None) -> Glance:
    vals = states.values()
    return Glance(items=len(states), not_reviewed=sum(1 for s in vals if not s.reviewed),
                  open_deficiencies=sum(1 for s in vals if s.open_deficiency),
                  requested=sum(1 for s in vals if s.state == REQUESTED),
                  requests_outstanding=app.info_requests.filter(responded_on__isnull=True).count(),
                  clock=action_clock(app) if today is None else _clock(app, today))


def _clock(app, today):
    from stormwater.cases.selectors import case_clock

    return case_clock(app.case, pwf.ACTION, today=today)


def checklist_rows(states: dict[str, ItemState]):
    """[(checklist, [(entry, state or None for a heading), ...]), ...] in the regulation's order."""
    return [(cl, [(e, states.get(e.para)) for e in catalog.entries_of(cl.key)]) for cl in CHECKLISTS]


def workbench_for(app, *, today: date | None = None) -> dict:
    review = _latest_review(app.case)
    states = item_states(app, review=review)
    return {"states": states, "checklists": checklist_rows(states), "glance": glance(app, states, today=today),
            "review": review, "standards": (review.results.get("standards", []) if review else []),
            "proposed_conditions": [(s.entry, s.finding.condition) for s in states.values()
                                    if s.finding is not None and s.finding.condition.strip()],
            "requests": list(app.info_requests.order_by("requested_on", "id")
                             .prefetch_related("workbench_items")),
            "raisable": [s for s in states.values() if s.open_deficiency]}


def review_summary(app) -> dict:
    """Everything the summary that goes with the decision shows: every checklist and item with its
    paragraph and finding, every standard of the engineering review, the requests and the conditions."""
    ctx = workbench_for(app)
    ctx.update({"app": app, "case": app.case, "conditions": list(app.conditions.all()),
                "decided": app.case.status in pwf.DECIDED or app.case.status == pwf.Status.CLOSED,
                "generated_on": timezone.localdate()})
    return ctx


# --- pre-application meetings (§ 380-10 A) ---------------------------------------------------------

def meetings_for_user(user) -> QuerySet[PreApplicationMeeting]:
    qs = PreApplicationMeeting.objects.select_related("case", "applicant")
    if user.can(Perm.PERMIT_VIEW_ALL):
        return qs
    return qs.filter(applicant=user)


def meeting_get_for_user(*, user, meeting_id: int) -> PreApplicationMeeting:
    m = meetings_for_user(user).filter(pk=meeting_id).first()
    if m is None:
        raise Http404(ERR_MEETING_NOT_FOUND)
    return m


def lid_answers(meeting) -> list[tuple[Entry, LidChecklistAnswer | None]]:
    latest = {}
    for a in meeting.lid_answers.select_related("recorded_by").order_by("at", "id"):
        latest[a.para] = a
    return [(e, latest.get(e.para)) for e in catalog.LID_DESIGN_CHECKLIST]
