"""JSON of jobs for other systems and for the job page's polling (docs/jobs.md lists the fields).

GET  /api/jobs/          recent jobs the caller may see
POST /api/jobs/          {"kind": "...", "params": {...}} → 202 and the job (then poll its URL)
GET  /api/jobs/<id>/     one job: state, progress, result, error, file URL, last log lines
"""
from __future__ import annotations

from django.http import JsonResponse

from stormwater.accounts.access import require_perm
from stormwater.web.jsonapi import BadInput, api_errors, json_object, only_fields

from .registry import JobParamError
from .selectors import job_get_for_user, job_json, jobs_for_user
from .services import job_start

_errors = api_errors(JobParamError)


@require_perm(api=True)  # not csrf_exempt: it acts with the signed-in session, so a foreign page must not drive it
@_errors
def api_jobs(request):
    if request.method == "POST":
        body = json_object(request)
        only_fields(body, {"kind", "params"})
        kind, params = body.get("kind"), body.get("params", {})
        if not isinstance(kind, str) or not kind:
            raise BadInput("kind: required, the name of a kind of job")
        if not isinstance(params, dict):
            raise BadInput("params: must be an object")
        job = job_start(kind=kind, params=params, acting_user=request.user)
        return JsonResponse(job_json(job), status=202)
    if request.method != "GET":
        return JsonResponse({"error": "method not allowed (GET or POST)"}, status=405)
    return JsonResponse({"jobs": [job_json(j, log_lines=0) for j in jobs_for_user(user=request.user, limit=100)]})


@require_perm(api=True)
@_errors
def api_job_detail(request, job_id: int):
    return JsonResponse(job_json(job_get_for_user(user=request.user, job_id=job_id)))
