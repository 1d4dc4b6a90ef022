"""Reads of the work queue: a person's queue (every app's providers, see ``registry``), the counts and small
charts of their home page, and the user behind a calendar link."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.db.models import Count
from django.utils import timezone

from stormwater.accounts.roles import Perm, Role

from .registry import Queue, QueueContext, WorkItem, collect
from .services import SECRET_PREFIX, feed_key_hash

CATEGORY_LABELS = {"inspection": "Inspections", "certification": "O&M certifications", "decision": "Decisions",
                   "payment": "Payments", "hearing": "Hearings", "commitment": "Commitments", "demand": "Demands",
                   "stabilization": "Stabilization", "violation": "Violations", "maintenance": "Maintenance",
                   "completeness": "Completeness", "information": "Information requests", "approval": "Approvals",
                   "applicant window": "Applicant's windows", "owner window": "Owner's windows"}


def queue_context(*, user, today: date | None = None, now: datetime | None = None) -> QueueContext:
    now = now or timezone.now()
    return QueueContext(user=user, today=today or timezone.localdate(now), now=now)


def work_queue_for_user(*, user, today: date | None = None, now: datetime | None = None,
                        sources: list[str] | None = None) -> Queue:
    """Everything with a clock that ``user`` acts on or is a party to, overdue first, then by due date."""
    return collect(queue_context(user=user, today=today, now=now), only=sources)


def calendar_feed_user(secret: str):
    """The active user whose live calendar link this is, or None (unknown, reset, revoked, or deactivated)."""
    from .models import CalendarFeed

    if not secret.startswith(SECRET_PREFIX) or len(secret) > 200:
        return None
    feed = CalendarFeed.objects.select_related("user").filter(key_hash=feed_key_hash(secret),
                                                              revoked_at__isnull=True).first()
    if feed is None or not feed.user.is_active:
        return None
    return feed.user


def live_feed(user):
    from .models import CalendarFeed

    return CalendarFeed.objects.filter(user=user, revoked_at__isnull=True).first()


# --- the home page -----------------------------------------------------------------------------------------

@dataclass
class Tile:
    label: str
    value: str
    href: str = ""
    bad: bool = False
    note: str = ""


@dataclass
class Chart:
    """A small server-rendered SVG chart (fund.charts geometry) and the same figures as a table."""

    title: str
    kind: str                      # "hbars" or "vbars"
    geometry: dict
    rows: list[tuple[str, ...]]    # the text equivalent: one row per bar
    headers: tuple[str, ...]
    note: str = ""


@dataclass
class Home:
    queue: Queue
    tiles: list[Tile] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)


def queue_tiles(queue: Queue) -> list[Tile]:
    today = queue.today
    due_today = [i for i in queue.items if not i.overdue and i.due == today]
    week = [i for i in queue.items if not i.overdue and i.due is not None and today < i.due <= today + timedelta(days=6)]
    return [Tile("Overdue", f"{len(queue.overdue):,}", "#queue", bad=bool(queue.overdue)),
            Tile("Due today", f"{len(due_today):,}", "#queue"),
            Tile("Due in the next 6 days", f"{len(week):,}", "#queue"),
            Tile("In your queue", f"{len(queue.items):,}", "#queue")]


def inspections_this_week(queue: Queue) -> list[WorkItem]:
    end = queue.today + timedelta(days=6)
    return [i for i in queue.items if i.category == "inspection" and i.due is not None and i.due <= end]


def _inspections_chart(queue: Queue) -> Chart:
    from stormwater.fund import charts

    items = inspections_this_week(queue)
    today = queue.today
    days = [today + timedelta(days=k) for k in range(7)]
    late = sum(1 for i in items if i.due < today)
    counts = [("Late", late)] + [(f"{d:%a %-d}", sum(1 for i in items if i.due == d)) for d in days]
    return Chart(title="Inspections due this week, by day", kind="vbars",
                 geometry=charts.vbars(counts, width=460, height=180, money=False),
                 rows=[("Overdue" if label == "Late" else label, f"{n:,}") for label, n in counts],
                 headers=("Day", "Inspections due"),
                 note="Routine and storm inspections of the erosion controls and the design engineer's noticed "
                      "inspections (CGP 2022 Part 4; § 380-16 C).")


def _permits_chart() -> Chart | None:
    from stormwater.cases.models import Case
    from stormwater.fund import charts
    from stormwater.permits.workflow import PERMIT, Status

    counts = dict(Case.objects.filter(kind=PERMIT).order_by().values_list("status").annotate(n=Count("id")))
    rows = [(s.label.split(":")[0], counts[s.value]) for s in Status if counts.get(s.value)]
    if not rows:
        return None
    return Chart(title="Permit files by status", kind="hbars",
                 geometry=charts.hbars([(label, [n]) for label, n in rows], series=["Files"], money=False,
                                       width=380, label_w=160),
                 rows=[(label, f"{n:,}") for label, n in rows], headers=("Status", "Files"))


def _collected_chart(today: date) -> Chart:
    from stormwater.fund import charts
    from stormwater.fund.selectors import billed_for_year, fiscal_year_bounds, fiscal_year_of, receipts_total

    fy = fiscal_year_of(today)
    start, _ = fiscal_year_bounds(fy)
    billed, collected = billed_for_year(fy), receipts_total(start, today)
    pct = f"{collected / billed * 100:.0f} %" if billed else "—"
    return Chart(title=f"Collected against billed, FY{fy} to date", kind="hbars",
                 geometry=charts.hbars([(f"FY{fy}", [billed, collected])], series=["Billed", "Collected"],
                                       width=380, label_w=60),
                 rows=[("Billed", f"${billed:,.2f}"), ("Collected", f"${collected:,.2f}"), ("Collected share", pct)],
                 headers=("", f"FY{fy}"),
                 note="Fees billed for the fiscal year (bills whose period starts in it) and fee receipts since "
                      "July 1 (payments less reversed payments, and liens paid through the tax bill).")


def _certifications_tile(queue: Queue) -> Tile:
    over = [i for i in queue.items if i.kind == "stewardship.certification" and i.overdue]
    return Tile("O&M certifications overdue", f"{len(over):,}", "#queue", bad=bool(over),
                note="§ 380-14 C(2)(l)")


def home_for(*, user, today: date | None = None, now: datetime | None = None) -> Home:
    """A person's home: their queue, counts, and the charts their role would rather look at."""
    queue = work_queue_for_user(user=user, today=today, now=now)
    home = Home(queue=queue, tiles=queue_tiles(queue))
    if user.can(Perm.STEWARDSHIP):
        home.tiles.append(_certifications_tile(queue))
    if user.can(Perm.INSPECT) or (user.role == Role.CONSULTANT and inspections_this_week(queue)):
        home.charts.append(_inspections_chart(queue))
    if user.can(Perm.PERMIT_VIEW_ALL):
        c = _permits_chart()
        if c is not None:
            home.charts.append(c)
    if user.can(Perm.BILLING_VIEW_ALL) and (user.can(Perm.FUND_VIEW) or user.can(Perm.COLLECT)):
        home.charts.append(_collected_chart(queue.today))
    return home


def by_category(items: list[WorkItem]) -> list[tuple[str, int]]:
    out: dict[str, int] = {}
    for i in items:
        out[i.category] = out.get(i.category, 0) + 1
    return sorted(((CATEGORY_LABELS.get(k, k or "Other"), n) for k, n in out.items()), key=lambda r: -r[1])
