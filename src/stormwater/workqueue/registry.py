"""The one mechanism every app contributes its clocks to (issue 16 "A home for each role").

An app declares a *provider* in its own ``workqueue.py`` (imported at start-up by ``WorkqueueConfig.ready``,
the way Django's admin finds ``admin.py``)::

    from stormwater.workqueue.registry import WorkItem, register

    @register("permits", label="Permits")
    def permit_items(ctx):
        ...
        yield WorkItem(...)

A provider receives a ``QueueContext`` (the user, today, now) and yields ``WorkItem``s — what is due, by
when, where to act, who acts and under which rule. Two rules every provider keeps:

1. **Scope in the query.** It reads only the records the user may act on or is a party to (a user holding
   the acting permission: all of them; otherwise through the app's own access function — an owner's,
   applicant's or engineer's files), and marks each item with the permissions that act on it (``perms``)
   and the users who are parties to it (``user_ids``). The registry keeps an item only when the user holds
   one of its permissions or is one of its parties and not staff (``WorkItem.visible_to``): a provider that
   reads too much still shows nothing it should not.
2. **A constant number of queries**, whatever the number of records (tests/workqueue/test_query_counts.py
   holds every provider to it at 10 and 200 records).

The registry sorts: overdue first, then by due date (undated last), then by title.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Callable, Iterable

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class QueueContext:
    user: object
    today: date
    now: datetime

    def can(self, *perms: str) -> bool:
        return any(self.user.can(p) for p in perms)

    @property
    def week_end(self) -> date:
        return self.today + timedelta(days=6)


@dataclass(frozen=True)
class WorkItem:
    """One thing with a clock.

    source      the provider's name ("permits", "relief", …)
    kind        what sort of item, stable for machines ("permit.action", "construction.inspection", …)
    title       what it is about ("SWP-2026-0003 · 12 Elm St")
    action      what to do, in plain words ("Decide the application (approve, approve with conditions …)")
    due         the last day (None: no date, e.g. a clock that stands still)
    overdue     the day has passed without the act
    record_url  the case or record page; record_label its number
    act_url     where the act is done (a form, a section of the record page)
    perms       permissions that act on it (a user holding any of them sees it)
    user_ids    users who are parties to it (applicant, owner, design engineer, ESC inspector …)
    citation    the clock's source (chapter, section, paragraph; or the standard and part)
    party       who must act by the date: "town" or the outside party ("owner", "applicant", "engineer" …)
    due_at      a time of day when the rule counts hours (a storm inspection within 24 hours)
    category    for counts and charts: "inspection", "certification", "decision", "payment", …
    detail      one more line of facts (amounts, what is missing)
    """

    source: str
    kind: str
    title: str
    action: str
    due: date | None
    overdue: bool
    record_url: str
    record_label: str
    act_url: str
    citation: str
    perms: tuple[str, ...] = ()
    user_ids: frozenset[int] = field(default_factory=frozenset)
    party: str = "town"
    due_at: datetime | None = None
    category: str = ""
    detail: str = ""

    def visible_to(self, user) -> bool:
        """A user holding one of the acting permissions sees it; so does a party to it — unless the user is staff
        (Town staff who filed a paper application for a walk-in are recorded as its applicant, but the owner's
        windows are not theirs to act on)."""
        if any(user.can(p) for p in self.perms):
            return True
        return not getattr(user, "is_staff_role", False) and getattr(user, "pk", None) in self.user_ids

    def days_left(self, today: date) -> int | None:
        return None if self.due is None else (self.due - today).days

    def sort_key(self):
        return (not self.overdue, self.due is None, self.due or date.max,
                self.due_at.isoformat() if self.due_at else "", self.title)


Provider = Callable[[QueueContext], Iterable[WorkItem]]


@dataclass(frozen=True)
class Registered:
    name: str
    label: str
    func: Provider


_PROVIDERS: dict[str, Registered] = {}


def register(name: str, *, label: str) -> Callable[[Provider], Provider]:
    """Decorator: register ``func`` as the work-queue provider ``name`` (one per name; re-registering the same
    function, e.g. on a module reload, replaces it)."""

    def deco(func: Provider) -> Provider:
        _PROVIDERS[name] = Registered(name=name, label=label, func=func)
        return func
    return deco


def providers() -> list[Registered]:
    return list(_PROVIDERS.values())


def provider(name: str) -> Registered:
    return _PROVIDERS[name]


@dataclass
class Queue:
    items: list[WorkItem]
    failed: list[str]          # labels of providers that raised (logged; the page says so, nothing hidden)
    today: date

    @property
    def overdue(self) -> list[WorkItem]:
        return [i for i in self.items if i.overdue]

    def due_within(self, days: int) -> list[WorkItem]:
        end = self.today + timedelta(days=days)
        return [i for i in self.items if i.due is not None and i.due <= end]

    def rows(self, items: list[WorkItem] | None = None) -> list[tuple[WorkItem, int | None, int | None]]:
        """(item, days left, days late) for templates: days left None when undated, days late None unless past."""
        out = []
        for i in self.items if items is None else items:
            left = i.days_left(self.today)
            out.append((i, left, -left if left is not None and left < 0 else None))
        return out

    def by_source(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for i in self.items:
            out[i.source] = out.get(i.source, 0) + 1
        return out


def collect(ctx: QueueContext, *, only: Iterable[str] | None = None) -> Queue:
    """Every registered provider's items the user may see, sorted (overdue first, then by due date)."""
    wanted = set(only) if only is not None else None
    items: list[WorkItem] = []
    failed: list[str] = []
    for p in providers():
        if wanted is not None and p.name not in wanted:
            continue
        try:
            got = list(p.func(ctx))
        except Exception:  # one app's fault must not take the whole home page down; it is logged and shown
            log.exception("work-queue provider %s failed", p.name)
            failed.append(p.label)
            continue
        items.extend(i for i in got if i.visible_to(ctx.user))
    items.sort(key=WorkItem.sort_key)
    return Queue(items=items, failed=failed, today=ctx.today)
