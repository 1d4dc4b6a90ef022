"""GIS imports as background jobs (issue 15): the check and the import run in the worker and show live on
the import's page; a failed check says why; a re-run after a crash finds the import done (the same result,
nothing written twice)."""
from __future__ import annotations

import pytest

from stormwater.jobs.models import Job

pytestmark = pytest.mark.django_db


def test_a_gis_import_job_run_again_finds_it_done(personas, db, synthetic_assessor_csv, run_worker, client_for):
    from stormwater.gis.models import GisImport
    from stormwater.jobs.services import job_execute, job_start
    from stormwater.parcels.models import Parcel

    c = client_for(personas["assessor"])
    with synthetic_assessor_csv.open("rb") as f:
        c.post("/gis/imports/new/", {"kind": "assessor", "files": f})
    gi = GisImport.objects.get()
    c.post(f"/gis/imports/{gi.pk}/", {"source": "missing.csv|", "map_parcel_id": "PID", "map_address": "ADDR",
                                      "map_land_use_code": "LUC", "lot_unit": "sqft"})
    run_worker()
    check = Job.objects.get(kind="gis_import_check")
    gi.refresh_from_db()
    assert check.state == "failed" and check.error and gi.status == "failed"
    c.post(f"/gis/imports/{gi.pk}/", {"source": "assessor.csv|", "map_parcel_id": "PID", "map_address": "ADDR",
                                      "map_owner_name": "OWNER", "map_land_use_code": "LUC", "lot_unit": "sqft",
                                      "map_dwelling_units": "UNITS", "map_lot_size": "LOT"})
    run_worker()
    c.post(f"/gis/imports/{gi.pk}/commit/")
    run_worker()
    job = Job.objects.get(kind="gis_import")
    assert job.state == "succeeded" and job.result["created"] == 3 and job.result["status"] == "imported"
    # A crash after the import's commit and before the job was marked done: the re-run is the same result.
    Job.objects.filter(pk=job.pk).update(state="queued")
    again = job_execute(job_id=job.pk)
    assert again.result == job.result and Parcel.objects.count() == 3
    assert job_start(kind="gis_import", params={"import": gi.pk}, acting_user=None)
