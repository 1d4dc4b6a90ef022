"""Job pages: the list of recent jobs, one job live (state, progress n of N, log, result, errors), its file,
and the two acts (start a job from a page's form, start a failed one again). Each parses, calls one service."""
from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import FileResponse, Http404, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from stormwater.accounts.access import require_perm

from stormwater.web.confirm import CONFIRM_FIELD, confirm_page, confirmation_needed

from .registry import JobParamError, kind_get, may_start
from .lists import JobList
from .selectors import job_get_for_user, job_log_tail, jobs_visible
from .services import job_rerun, job_start

FORM_FIELDS_NOT_PARAMS = {"csrfmiddlewaretoken", "next"}


@require_perm()
def job_list(request):
    """Every job the user may see (``jobs_visible``) on the one list mechanism (``jobs.lists``)."""
    lst = JobList(request, jobs_visible(user=request.user))
    return lst.export_response() or render(request, "jobs/list.html", {"lst": lst})


@require_perm()
def job_detail(request, job_id: int):
    job = job_get_for_user(user=request.user, job_id=job_id)
    return render(request, "jobs/detail.html", {"job": job, "log": job_log_tail(job),
                                                "withdrawn": _withdrawn(job, request.user)})


@require_perm()
def job_file(request, job_id: int):
    job = job_get_for_user(user=request.user, job_id=job_id)
    why = _withdrawn(job)
    if why:  # e.g. the print file of a run voided since: gone, and said so (never the file without a mark)
        return HttpResponse(why, status=410, content_type="text/plain; charset=utf-8")
    why = _withheld(job, request.user)
    if why:  # e.g. a list's file made before its starter's role changed (issue 29)
        return HttpResponse(why, status=403, content_type="text/plain; charset=utf-8")
    path = (Path(settings.MEDIA_ROOT) / job.file).resolve() if job.file else None
    if path is None or not path.is_file() or not path.is_relative_to(Path(settings.MEDIA_ROOT).resolve()):
        raise Http404("This job has no file.")
    return FileResponse(path.open("rb"), as_attachment=True, filename=path.name)


def _withdrawn(job, user=None) -> str:
    """Why the job's file may not be downloaded (by ``user``, when given), or ""."""
    from .registry import KINDS

    kind = KINDS.get(job.kind)
    return (kind.withdrawn(job.params or {}) or _withheld(job, user)) if kind else ""


def _withheld(job, user) -> str:
    from .registry import KINDS

    kind = KINDS.get(job.kind)
    return kind.withheld(job, user) if kind and user is not None else ""


def _back(request, job):
    # A path on this site only: ``redirect`` reads any other word as a URL name ("None" was a NoReverseMatch, a 500).
    nxt = request.POST.get("next", "")
    if nxt.startswith("/") and url_has_allowed_host_and_scheme(nxt, allowed_hosts={request.get_host()},
                                                               require_https=request.is_secure()):
        return HttpResponseRedirect(nxt)
    return redirect("job_detail", job_id=job.pk) if job else redirect("job_list")


@require_POST
@require_perm()
def job_start_view(request, kind: str):
    """POST from any page's start form (include "jobs/_start.html"): the form's fields are the params."""
    params = {k: v for k, v in request.POST.items() if k not in FORM_FIELDS_NOT_PARAMS | {CONFIRM_FIELD}}
    try:
        k = kind_get(kind)
        if k.confirm is not None and may_start(request.user, k) and confirmation_needed(request):
            asked = k.confirm(k.clean(dict(params)))
            if asked is not None:  # issue 25: a bulk act that cannot be taken back is asked first
                return confirm_page(request, asked)
        job = job_start(kind=kind, params=params, acting_user=request.user)
    except (JobParamError, PermissionDenied) as e:
        messages.error(request, str(e))
        return _back(request, None)
    messages.success(request, f"Started: {job.title} (job {job.pk}). Its progress shows below; you can go on working.")
    return _back(request, job)


@require_POST
@require_perm()
def job_rerun_view(request, job_id: int):
    job = job_get_for_user(user=request.user, job_id=job_id)
    try:
        job_rerun(job=job, acting_user=request.user)
    except (ValueError, PermissionDenied) as e:
        messages.error(request, str(e))
    else:
        messages.success(request, "Started again.")
    return redirect("job_detail", job_id=job.pk)
