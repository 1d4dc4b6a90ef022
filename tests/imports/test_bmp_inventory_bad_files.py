"""BMP inventory through the pipeline (issue 20 "Wrong today: BMP inventory"): idempotent by source id, all or
nothing (no orphan site from a failed import), an empty or missing folder refused, State Plane feet reprojected to
degrees."""
from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from stormwater.stewardship.models import Bmp, Site, Structure

from .conftest import X0, Y0

pytestmark = pytest.mark.django_db


def write_inventory(folder, *, crs="EPSG:4326", pts=None):
    import geopandas as gpd
    import shapely

    folder.mkdir(exist_ok=True)
    pts = pts or [(-72.58, 42.05), (-72.581, 42.051), (-72.582, 42.052)]
    gpd.GeoDataFrame({"StructureType": ["Water Quality BMP", "Water Quality BMP", "Catchbasin"],
                      "FeatureType": ["Bioretention", "Detention Pond", ""], "GlobalID": ["{A1}", "{A2}", "{C1}"],
                      "OBJECTID": [1, 2, 3], "Owner": ["Town", "Town", "Town"]},
                     geometry=[shapely.Point(x, y) for x, y in pts], crs=crs).to_file(
        folder / "STM_Structure_pt.geojson", driver="GeoJSON")
    return folder


def test_re_importing_the_same_inventory_does_not_double_it(tmp_path):
    inv = write_inventory(tmp_path / "inv")
    call_command("stewardship_import_inventory", str(inv))
    site = Site.objects.get()
    call_command("stewardship_import_inventory", str(inv), "--site", site.case.number)
    assert Bmp.objects.filter(site=site).count() == 2 and Structure.objects.filter(site=site).count() == 1


def test_a_truncated_inventory_leaves_no_orphan_site(tmp_path):
    inv = write_inventory(tmp_path / "inv")
    f = inv / "STM_Structure_pt.geojson"
    f.write_bytes(f.read_bytes()[:300])
    with pytest.raises(CommandError, match=r"STM_Structure_pt\.geojson"):
        call_command("stewardship_import_inventory", str(inv))
    assert Site.objects.count() == 0 and Bmp.objects.count() == 0


@pytest.mark.parametrize("make", ["empty", "missing"])
def test_an_empty_or_missing_folder_creates_no_site(tmp_path, make):
    folder = tmp_path / "nothing"
    if make == "empty":
        folder.mkdir()
    with pytest.raises(CommandError, match=r"nothing"):
        call_command("stewardship_import_inventory", str(folder))
    assert Site.objects.count() == 0


def test_a_layer_in_state_plane_feet_is_stored_in_degrees(tmp_path):
    inv = write_inventory(tmp_path / "inv", crs="EPSG:2249",
                          pts=[(X0, Y0), (X0 + 100, Y0 + 100), (X0 + 200, Y0 + 200)])
    call_command("stewardship_import_inventory", str(inv))
    b = Bmp.objects.order_by("external_id").first()
    assert 41.0 < b.latitude < 43.5 and -74.0 < b.longitude < -69.5


def test_the_web_upload_is_idempotent_and_a_bad_file_changes_nothing(tmp_path, personas, client_for):
    """The site page's inventory upload runs the same import: the same inventory again adds nothing; a truncated
    layer is refused naming it, and the site's inventory stays as it was."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    inv = write_inventory(tmp_path / "inv")
    call_command("stewardship_import_inventory", str(inv))
    site = Site.objects.get()
    before = (Bmp.objects.count(), Structure.objects.count(), Site.objects.count())
    c = client_for(personas["staff"])
    f = inv / "STM_Structure_pt.geojson"
    url = f"/stewardship/{site.case.number}/import/"
    r = c.post(url, {"files": SimpleUploadedFile(f.name, f.read_bytes())}, follow=True)
    assert r.status_code == 200 and (Bmp.objects.count(), Structure.objects.count(), Site.objects.count()) == before
    r = c.post(url, {"files": SimpleUploadedFile(f.name, f.read_bytes()[:300])})
    # refused: the site page again (400), the message on the upload form (issue 16, web.postdata.refused)
    assert r.status_code == 400 and "STM_Structure_pt.geojson" in r.content.decode()
    assert 'id="error-summary"' in r.content.decode()
    assert (Bmp.objects.count(), Structure.objects.count(), Site.objects.count()) == before
