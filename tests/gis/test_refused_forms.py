"""Issue 16 "Forms" (done when: "a refused staff form keeps every typed value and marks the field"): the GIS import's
field mapping refused comes back as its page (400) with every column chosen and the first input in error marked
(``web.postdata.refused``); an upload refused keeps the kind chosen and says at the file input to choose it again
(a browser never puts a file back). Nothing is started."""
from office_refill import assert_refused
from stormwater.gis.models import GisImport
from stormwater.jobs.models import Job


def test_assessor_mapping_without_a_parcel_id(client_for, personas, db, synthetic_assessor_csv):
    c = client_for(personas["assessor"])
    with synthetic_assessor_csv.open("rb") as f:
        c.post("/gis/imports/new/", {"kind": "assessor", "files": f})
    gi = GisImport.objects.get()
    url = f"/gis/imports/{gi.pk}/"
    posted = {"source": "assessor.csv|", "map_parcel_id": "", "map_address": "ADDR", "map_owner_name": "OWNER",
              "map_land_use_code": "LUC", "map_dwelling_units": "UNITS", "map_lot_size": "LOT", "lot_unit": "acres"}
    form = assert_refused(c.post(url, posted), "", "map_parcel_id", {k: v for k, v in posted.items() if v})
    assert "Map a column to" in form
    assert not Job.objects.filter(kind="gis_import_check").exists()


def test_upload_of_an_unknown_kind(client_for, personas, db, synthetic_assessor_csv):
    c = client_for(personas["assessor"])
    with synthetic_assessor_csv.open("rb") as f:
        r = c.post("/gis/imports/new/", {"kind": "nope", "files": f})
    assert r.status_code == 400 and not GisImport.objects.exists()
    page = r.content.decode()
    assert 'aria-invalid="true"' in page and "Choose the file(s) again" in page
