"""Issue 26, the BMP inventory (each written failing first): a layer in feet labelled WGS84, metres labelled
EPSG:2249, points at (0,0), a GlobalID on two features — each refused naming the layer, nothing changed; the same
inventory imported again without ``--site`` goes to its site, not a second copy of every BMP."""
from __future__ import annotations

import pytest
from dbunchanged import nothing_changed
from django.core.management import CommandError, call_command

from stormwater.stewardship.models import Bmp, Site

from .conftest import X0, Y0
from .test_bmp_inventory_bad_files import write_inventory

pytestmark = pytest.mark.django_db
FEET = [(X0, Y0), (X0 + 50, Y0 + 50), (X0 + 90, Y0 + 10)]  # Massachusetts State Plane feet


@pytest.mark.parametrize("kw, match", [
    ({"crs": "EPSG:4326", "pts": FEET}, r"STM_Structure_pt.geojson: coordinates x 740,000 to 740,090.*cannot be deg"),
    ({"crs": "EPSG:2249", "pts": [(x * 0.3048, y * 0.3048) for x, y in FEET]},
     r"STM_Structure_pt.geojson: the layer lands at longitude -72\.96.*latitude 36\.69.*outside the town"),
    ({"pts": [(0, 0), (-72.58, 42.05), (-72.581, 42.051)]},
     r"STM_Structure_pt.geojson: the layer lands at longitude -72\.5810 to 0\.0000, latitude 0\.0000 to 42\.0510"),
])
def test_an_inventory_in_the_wrong_place_is_refused_and_opens_no_site(tmp_path, kw, match):
    inv = write_inventory(tmp_path / "inv", **kw)
    with nothing_changed(), pytest.raises(CommandError, match=match):
        call_command("stewardship_import_inventory", str(inv))


def test_a_globalid_on_two_features_is_refused(tmp_path):
    import geopandas as gpd

    inv = write_inventory(tmp_path / "inv")
    f = inv / "STM_Structure_pt.geojson"
    df = gpd.read_file(f)
    df.loc[1, "GlobalID"] = "{a1}"  # the same as row 0's {A1}, written another way
    df.to_file(f, driver="GeoJSON")
    with nothing_changed(), pytest.raises(CommandError, match=r"GlobalID.*more than one feature.*\{A1\} \(2 features"):
        call_command("stewardship_import_inventory", str(inv))


def test_the_same_inventory_again_without_site_goes_to_its_site(tmp_path):
    inv = write_inventory(tmp_path / "inv")
    call_command("stewardship_import_inventory", str(inv))
    with nothing_changed(exclude=("imports.importrecord", "audit.auditevent", "stewardship.inventoryimport",
                                  "cases.caseevent")):
        call_command("stewardship_import_inventory", str(inv))
    assert Site.objects.count() == 1 and Bmp.objects.count() == 2
