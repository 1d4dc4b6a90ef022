"""Pages and endpoints of the work queue: the whole queue (``/work-queue/``), the same as JSON
(``/api/work-queue/``, session or API token), the calendar link page and the iCalendar feed itself (the secret
link is the credential: calendar clients send no cookie). Thin: parse, call a selector or one service."""
from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from stormwater.accounts.access import public, require_perm

from . import services
from .ical import queue_calendar
from .registry import WorkItem, providers
from .selectors import by_category, calendar_feed_user, live_feed, queue_tiles, work_queue_for_user

ERR_SOURCE = "source: expected one of {names}"


def _sources(request) -> tuple[list[str] | None, str | None]:
    raw = [s for s in request.GET.getlist("source") if s]
    if not raw:
        return None, None
    names = {p.name for p in providers()}
    bad = [s for s in raw if s not in names]
    if bad:
        return None, ERR_SOURCE.format(names=", ".join(sorted(names)))
    return raw, None


@require_perm()
def work_queue_page(request):
    sources, err = _sources(request)
    if err:
        messages.error(request, err)
    overdue_only = request.GET.get("overdue") == "1"
    queue = work_queue_for_user(user=request.user, sources=sources)
    items = [i for i in queue.items if i.overdue] if overdue_only else queue.items
    return render(request, "workqueue/queue.html", {
        "queue": queue, "items": items, "rows": queue.rows(items), "tiles": queue_tiles(queue), "categories": by_category(queue.items),
        "providers": providers(), "chosen": sources or [], "overdue_only": overdue_only})


def item_json(item: WorkItem, *, today) -> dict:
    return {"source": item.source, "kind": item.kind, "title": item.title, "action": item.action,
            "due": item.due.isoformat() if item.due else None,
            "due_at": item.due_at.isoformat() if item.due_at else None,
            "overdue": item.overdue, "days_left": item.days_left(today),
            "record": {"label": item.record_label, "url": item.record_url}, "act_url": item.act_url,
            "who_acts": item.party, "perms": list(item.perms), "citation": item.citation,
            "category": item.category, "detail": item.detail}


@require_GET
@require_perm(api=True)
def api_work_queue(request):
    """The caller's work queue: what their role acts on and the files they are a party to, overdue first,
    then by due date. ``source`` (repeatable) keeps one app's items."""
    sources, err = _sources(request)
    if err:
        return JsonResponse({"error": err}, status=400)
    queue = work_queue_for_user(user=request.user, sources=sources)
    return JsonResponse({"as_of": queue.today.isoformat(), "count": len(queue.items),
                         "overdue": len(queue.overdue), "failed": queue.failed,
                         "items": [item_json(i, today=queue.today) for i in queue.items]})


@require_http_methods(["GET", "POST"])
@require_perm()
def work_queue_calendar(request):
    """Get, reset or revoke one's calendar link (the secret is shown once, right after it is made)."""
    secret = None
    if request.method == "POST":
        if request.POST.get("action") == "revoke":
            try:
                services.calendar_feed_revoke(user=request.user, acting_user=request.user)
            except services.FeedError as e:
                messages.error(request, str(e))
            else:
                messages.success(request, "Calendar link revoked: calendars subscribed to it get nothing more.")
            return redirect("work_queue_calendar")
        _, secret = services.calendar_feed_issue(user=request.user, acting_user=request.user)
    url = request.build_absolute_uri(reverse("work_queue_ical", args=[secret])) if secret else None
    return render(request, "workqueue/calendar.html", {"feed": live_feed(request.user), "url": url})


@public
@require_GET
def work_queue_ical(request, secret: str):
    """The iCalendar feed of the person whose secret link this is (404 for any other string: nothing to probe)."""
    user = calendar_feed_user(secret)
    if user is None:
        return HttpResponse("No such calendar (the link was reset or revoked).\n", status=404,
                            content_type="text/plain; charset=utf-8")
    queue = work_queue_for_user(user=user)
    body = queue_calendar(queue, name=f"Stormwater work queue — {user.get_full_name() or user.username}",
                          absolute=request.build_absolute_uri)
    resp = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    resp["Content-Disposition"] = 'inline; filename="work-queue.ics"'
    resp["Cache-Control"] = "private, no-store"
    resp["Referrer-Policy"] = "no-referrer"
    return resp
