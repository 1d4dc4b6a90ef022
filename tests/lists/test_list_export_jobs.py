"""A list's Excel download past LIST_EXPORT_JOB_ROWS rows runs as a job (issue 29: 233 s for 400k rows inside
the request, past the server's timeout): ``?export=xlsx`` answers with the job's page at once, and the job,
run by the worker, makes the same workbook the direct download makes. Below the threshold: the direct download.
CSV streams row by row and is never a job."""
from __future__ import annotations

import io
from datetime import date

import pytest
import time_machine
from openpyxl import load_workbook

from stormwater.jobs.models import Job

URL = "/collections/aging/?as_of=2026-12-31&past_due=1&sort=-total&export=xlsx"


@pytest.fixture(autouse=True)
def _today():
    with time_machine.travel(date(2027, 1, 4), tick=False):
        yield


@pytest.fixture
def billed(town, add_parcels, bill_fy2027, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    add_parcels(6)
    bill_fy2027()
    return town


def cells(content: bytes) -> list[list[list]]:
    wb = load_workbook(io.BytesIO(content))
    return [[list(r) for r in ws.iter_rows(values_only=True)] for ws in wb.worksheets]


def body(resp) -> bytes:
    return b"".join(resp.streaming_content) if getattr(resp, "streaming", False) else resp.content


def test_a_large_excel_download_is_a_job_that_makes_the_same_workbook(client_for, personas, billed, settings,
                                                                        run_worker):
    c = client_for(personas["collector"])
    settings.LIST_EXPORT_JOB_ROWS = 100_000
    direct = c.get(URL)
    assert direct.status_code == 200 and direct["Content-Type"].startswith("application/vnd.openxmlformats")
    want = cells(body(direct))
    assert len(want[0]) > 3  # the header and the accounts past due
    assert not Job.objects.exists()
    assert "/jobs/start/list_export/" not in c.get(URL.replace("&export=xlsx", "")).content.decode()

    settings.LIST_EXPORT_JOB_ROWS = 2  # fewer than the rows: a job
    r = c.get(URL)
    job = Job.objects.get()
    assert r.status_code == 302 and r["Location"] == f"/jobs/{job.pk}/"
    assert job.kind == "list_export" and job.started_by == personas["collector"] and job.state == "queued"
    page = c.get(r["Location"]).content.decode()
    assert "Excel" in page and "aging" in page.lower()
    run_worker()
    job.refresh_from_db()
    assert job.state == "succeeded", job.error
    assert job.result["rows"] == len(want[0]) - 1 and job.file.endswith(".xlsx")
    got = c.get(f"/jobs/{job.pk}/file")
    assert got.status_code == 200 and got["Content-Disposition"] == direct["Content-Disposition"]
    assert cells(body(got)) == want
    # The page's own Excel link is then the job's start button (a POST), with the same params.
    page = c.get(URL.replace("&export=xlsx", "")).content.decode()
    assert 'action="/jobs/start/list_export/"' in page and "export=xlsx\" download" not in page
    assert 'name="query" value="as_of=2026-12-31&amp;past_due=1&amp;sort=-total&amp;export=xlsx"' in page
    posted = c.post("/jobs/start/list_export/", {"path": "/collections/aging/", "name": "aging",
                                                  "query": "as_of=2026-12-31&past_due=1&sort=-total&export=xlsx"})
    second = Job.objects.latest("pk")
    assert posted.status_code == 302 and posted["Location"] == f"/jobs/{second.pk}/" and second.params == job.params
    # CSV streams whatever the count: never a job.
    csv = c.get(URL.replace("xlsx", "csv"))
    assert csv.status_code == 200 and getattr(csv, "streaming", False) and Job.objects.count() == 2


def test_the_job_is_the_starters_own_and_checks_what_it_is_given(client_for, personas, billed, settings):
    from stormwater.jobs.registry import JobParamError
    from stormwater.jobs.services import job_start

    settings.LIST_EXPORT_JOB_ROWS = 2
    c = client_for(personas["collector"])
    job_id = int(c.get(URL)["Location"].split("/")[-2])
    assert client_for(personas["collector"]).get(f"/jobs/{job_id}/").status_code == 200
    director = client_for(personas["director"])  # who may see the aging too, but not another person's file
    assert director.get(f"/jobs/{job_id}/").status_code == 404
    assert director.get(f"/jobs/{job_id}/file").status_code == 404
    for bad in ({"path": "/collections/aging/", "query": "as_of=2026-12-31"},  # no export asked
                {"path": "/no/such/page/", "query": "export=xlsx"},
                {"path": "https://elsewhere.example/x", "query": "export=xlsx"}):
        with pytest.raises(JobParamError):
            job_start(kind="list_export", params=bad, acting_user=personas["collector"])


def test_a_queryset_list_and_an_owner_get_the_same_mechanism(client_for, personas, billed, settings):
    """Any list page (here the parcels, a queryset list): the job makes the rows the person who asked may see —
    an owner's file holds their own parcels only, as their direct download does."""
    from stormwater.jobs.services import job_execute

    for who in ("staff", "owner"):
        c = client_for(personas[who])
        settings.LIST_EXPORT_JOB_ROWS = 100_000
        want = cells(body(c.get("/parcels/?export=xlsx")))
        settings.LIST_EXPORT_JOB_ROWS = 0
        r = c.get("/parcels/?export=xlsx")
        assert r.status_code == 302, who
        job = job_execute(job_id=int(r["Location"].split("/")[-2]))
        assert job.state == "succeeded", job.error
        assert cells(body(c.get(f"/jobs/{job.pk}/file"))) == want and job.result["rows"] == len(want[0]) - 1
    settings.LIST_EXPORT_JOB_ROWS = 100_000
    assert len(want[0]) - 1 < len(cells(body(client_for(personas["staff"]).get("/parcels/?export=xlsx")))[0]) - 1


@pytest.mark.parametrize("change", ["role", "deactivated"])
def test_the_job_checks_the_starters_permission_when_it_runs(client_for, personas, billed, settings, change):
    """The job calls the page's view with a bare request (no middleware): the view's own check (``require_perm``:
    the role's permission, an active account) is what stands at run time. A starter who lost the permission since
    asking — another role, or deactivated — gets a failed job and no file."""
    from django.core.exceptions import PermissionDenied

    from stormwater.jobs.services import job_execute

    settings.LIST_EXPORT_JOB_ROWS = 2
    collector = personas["collector"]
    job_id = int(client_for(collector).get(URL)["Location"].split("/")[-2])
    if change == "role":
        collector.role = "assessor"  # parcels and GIS: not the aging (billing.view_all)
    else:
        collector.is_active = False
    collector.save()
    with pytest.raises(PermissionDenied):  # recorded on the job, and raised again to the worker
        job_execute(job_id=job_id)
    job = Job.objects.get(pk=job_id)
    assert job.state == "failed" and not job.file and "may not" in job.error, (job.state, job.error)
    assert not list(settings.MEDIA_ROOT.rglob("*.xlsx"))


def test_a_role_change_ends_the_session_the_file_is_fetched_with(client_for, personas, billed, settings):
    """The file of a job made before is fetched with a signed-in session (``/jobs/<id>/file``; the API gives only
    its URL). A role change ends the starter's sessions (``User._get_session_auth_hash``), so the file is had only
    after signing in again, with the second step the new role requires (accounts.twofactor.needed_at_sign_in)."""
    from django.urls import reverse

    from stormwater.jobs.services import job_execute

    settings.LIST_EXPORT_JOB_ROWS = 2
    collector = personas["collector"]
    c = client_for(collector)
    job = job_execute(job_id=int(c.get(URL)["Location"].split("/")[-2]))
    assert job.state == "succeeded" and c.get(f"/jobs/{job.pk}/file").status_code == 200
    collector.role = "director"  # still may see the aging; two-factor sign-in required (town default)
    collector.save()
    r = c.get(f"/jobs/{job.pk}/file")
    assert r.status_code == 302 and r["Location"].startswith(reverse("login")), r


@pytest.mark.parametrize("new_role", ["assessor", "owner"])
def test_a_file_made_before_a_role_change_is_withheld_after_it(client_for, personas, billed, settings, new_role):
    """Signed in again after a role change, the starter still sees their own job, but not its file: it holds the
    rows the former role could see (the aging, every parcel …). An assessor may not see the aging at all; an owner
    sees their own parcels only. The job page says so; making it again makes the file the new role may have."""
    from django.test import Client

    from stormwater.jobs.services import job_execute

    settings.LIST_EXPORT_JOB_ROWS = 2
    collector = personas["collector"]
    job = job_execute(job_id=int(client_for(collector).get(URL)["Location"].split("/")[-2]))
    assert job.state == "succeeded"
    collector.role = new_role
    collector.save()
    again = Client()
    again.force_login(collector)  # signed in again, as the new role
    assert again.get(f"/jobs/{job.pk}/file").status_code == 403
    page = again.get(f"/jobs/{job.pk}/").content.decode()
    assert f"/jobs/{job.pk}/file" not in page and "role has changed" in page
