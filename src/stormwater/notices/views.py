"""The outbox for staff: notices whose sending is unknown (a process died while sending) or failed, and the
act that settles an unknown one after checking the mail server's log for its Message-ID."""
from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm

from .lists import NoticeList
from .models import NoticeSent, NoticeStatus
from .services import notice_resolve


@require_perm(Perm.AUDIT_VIEW)
def outbox(request):
    """The outbox on the one list mechanism (``notices.lists``): ``?status=`` as before, and search, sort, export."""
    lst = NoticeList(request)
    return lst.export_response() or render(request, "notices/outbox.html", {"lst": lst})


@require_POST
@require_perm(Perm.AUDIT_VIEW)
def notice_resolve_view(request, notice_id: int):
    n = get_object_or_404(NoticeSent, pk=notice_id)
    was_sent = request.POST.get("was_sent") == "1"
    try:
        notice_resolve(notice=n, was_sent=was_sent, acting_user=request.user,
                       why="found in the mail server's log" if was_sent else "not in the mail server's log: send it")
    except ValueError as e:
        messages.error(request, str(e))
    else:
        if not was_sent:
            from .outbox import outbox_send

            status = outbox_send(notice_id=n.pk)
            messages.success(request, f"Notice {n.pk}: {NoticeStatus(status).label}.")
        else:
            messages.success(request, f"Notice {n.pk} recorded as sent.")
    return redirect("notice_outbox")
