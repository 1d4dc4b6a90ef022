"""A list's Excel file as a job (issue 29): the Excel download of any list page (``web.lists.ListPage``) with
more rows than ``settings.LIST_EXPORT_JOB_ROWS`` starts this job instead of building the workbook inside the
request (400k rows took 233 s, past the server's timeout), and answers with the job's page, where the file is
downloaded when it is ready.

The job asks the same page for the same download (its path and query), as the person who asked, with the
request marked "make the file here" (``web.listexports.EXPORT_HERE``): the same view, the same selector filtering by
that person, the same filters, order and columns, the same writer — so the job's workbook and the direct download
are the same file, and the person's role is checked again when it runs. It writes nothing but its file; run again
it makes the file again. Only its starter sees the job and its file (``registry.OWN_JOB``).

The older direct Excel URLs (``/collections/aging.xlsx``, ``/collections/delinquency.xlsx``, a commitment's
``export.xlsx``, the cashier's deposits, daily and general-ledger ``.xlsx``, the fund's receipts and revenue-vs-budget
``.xlsx``) start the same job past the same number of rows (``web.listexports.large_export``): its path is the URL,
which asks for Excel by its ``.xlsx`` ending.

The page's view is called with a bare request (no middleware), so what it checks itself is all that is checked when
the job runs: its ``require_perm`` (``User.can``: the role's permission, an active account) and the rows its selector
gives that person. A starter whose role lost the permission, or who was deactivated, since asking gets a failed job
and no file. The file of a job made before is fetched with a signed-in session (``/jobs/<id>/file``): a role change
ends the starter's sessions, so it takes signing in again, with the second step if the new role requires it; and
signed in again it is withheld (``made_for_another_role``: the result records the role it was made as), since it
holds what the former role could see (tests/lists/test_list_export_jobs.py)."""
from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, QueryDict
from django.shortcuts import redirect
from django.urls import Resolver404, resolve

from stormwater.jobs.registry import OWN_JOB, JobParamError, job_kind, only_params
from stormwater.jobs.services import job_file, job_start
from stormwater.web.files import CONTENT_TYPES
from stormwater.web.listexports import EXPORT_HERE, set_large_export

ERR_NOBODY = "A list's Excel file is made as the person who asked for it; this job names nobody."
ERR_NOT_A_FILE = "The list page answered {status} ({ctype}), not an Excel file."
MSG_ROLE_CHANGED = ("Your role has changed since this file was made: it holds what your former role could see. "
                    "Make the file again from the list.")


def clean_list_export(params: dict) -> dict:
    only_params(params, {"path", "query", "name"})
    path, query = str(params.get("path") or ""), str(params.get("query") or "")
    if not path.startswith("/") or path.startswith("//"):
        raise JobParamError(f"path: {path!r} is not a page of this site")
    try:
        resolve(path)
    except Resolver404:
        raise JobParamError(f"path: {path!r} is not a page of this site") from None
    q = QueryDict(query)
    if not path.endswith(".xlsx") and not any((k == "export" or k.endswith("-export")) and v == "xlsx"
                                              for k, v in q.items()):
        raise JobParamError("query: must ask for the Excel download (export=xlsx, or a path ending .xlsx)")
    name = str(params.get("name") or "list")[:60]
    return {"path": path, "query": query, "name": name}


def made_for_another_role(job, user) -> str:
    """The file holds the rows its starter's role could see when it was made (``result["role"]``): after a role
    change it is withheld (the aging after becoming an assessor, every parcel after becoming an owner)."""
    made_as = (job.result or {}).get("role")
    return MSG_ROLE_CHANGED if made_as is not None and made_as != user.role else ""


@job_kind("list_export", perm=OWN_JOB, label="Make the Excel file", clean=clean_list_export,
          title=lambda p: f"Excel file of the list: {p['name']}", withheld=made_for_another_role)
def list_export(job):
    if job.started_by_id is None:
        raise ValueError(ERR_NOBODY)
    path = job.params["path"]
    request = HttpRequest()
    request.method = "GET"
    request.path = request.path_info = path
    request.GET = QueryDict(job.params["query"])
    request.user = job.started_by
    setattr(request, EXPORT_HERE, job.progress)  # web.listexports: write the file here, report progress
    match = resolve(path)
    response = match.func(request, *match.args, **match.kwargs)
    ctype = response.get("Content-Type", "")
    if response.status_code != 200 or not ctype.startswith(CONTENT_TYPES["xlsx"]):
        raise ValueError(ERR_NOT_A_FILE.format(status=response.status_code, ctype=ctype))
    name = response["Content-Disposition"].split('filename="', 1)[1].rstrip('"')
    try:
        with job_file(job, name) as tmp, open(tmp, "wb") as out:
            for chunk in (response.streaming_content if response.streaming else [response.content]):
                out.write(chunk)
    finally:
        # Not response.close(): it sends request_finished, which closes this worker's database connection
        # mid-job. The workbook's temporary file is all there is to close.
        if getattr(response, "file_to_stream", None) is not None:
            response.file_to_stream.close()
    rows = getattr(response, "export_rows", None)
    job.log(f"{rows} rows written to {name}.")
    return {"rows": rows, "file": name, "role": job.started_by.role}


def start_list_export(request, params: dict, what: str):
    """``web.listexports.set_large_export``'s handler for ``?export=xlsx`` (a bookmark, another system; the page's own
    link is a form posting the same params to ``job_start``) and for an older direct ``.xlsx`` URL: the job started
    as the person asking, its page shown."""
    job = job_start(kind="list_export", params=params, acting_user=request.user)
    messages.info(request, f"{what} are too many to download at once: the Excel file is being made "
                           "in the background. Download it here when it is ready; you can go on working.")
    return redirect("job_detail", job_id=job.pk)


set_large_export(start_list_export)
