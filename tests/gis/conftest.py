"""Synthetic GIS fixtures with hand-computed areas (ft², EPSG:2249), and the shared reference data.

Town grid (x, y in ft, EPSG:2249 around Longmeadow):
  parcel P-1  [0,100]×[0,100]    10,000 ft²
  parcel P-2  [100,200]×[0,100]  10,000 ft²  (its east half [150,200] is also covered by right-of-way)
  buildings:  B1 [10,30]×[10,30] 400 ft² on P-1
  patios:     T1 [20,40]×[20,40] 400 ft² on P-1, 100 ft² of it under B1 (overlap counted once)
  driveways:  D1 [90,110]×[40,50] 200 ft² across the P-1/P-2 line: 100 to each
              D2 [140,160]×[0,10] 200 ft² on P-2, half inside the right-of-way [150,200]: 100 left
              D3 [300,310]×[0,10] 100 ft² on no parcel (street gap): reported, not attributed
  right-of-way R1 [150,260]×[-10,110]
Expected: P-1 impervious 800 = 400 + 400 − 100 (shared) + 100 (buildings 400, patios 400, driveways 100);
P-2 200 (driveways 100 + 100; 100 of D2 removed as right-of-way).
"""
from __future__ import annotations

from pathlib import Path

import pytest
import shapely

X0, Y0 = 740000.0, 2930000.0  # an origin in Longmeadow, MA State Plane ft

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "reference" / "gis"
CAMBRIDGE = SHARED / "cambridge-north-sample" / "cambridge_north_sample.gpkg"
SOMERVILLE_GDB = SHARED / "somerville-parcels-fgdb" / "Parcels.gdb"
MASSGIS_L3 = SHARED / "somerville-massgis-l3" / "tufts-somerville-2019.geojson"


def box(x1, y1, x2, y2):
    return shapely.box(X0 + x1, Y0 + y1, X0 + x2, Y0 + y2)


def need(path: Path):
    if not path.exists():
        pytest.skip(f"reference data not present at {path} (the repository does not depend on ../shared)")
    return path


def write_town(path, **impervious):
    """A GeoPackage (EPSG:2249) with the two parcels, the driveways and the right-of-way of the module
    docstring, plus each ``layer=[polygons]`` given."""
    import geopandas as gpd

    def layer(name, geoms, cols=None):
        gpd.GeoDataFrame(cols or {"k": list(range(1, len(geoms) + 1))}, geometry=geoms, crs="EPSG:2249").to_file(
            path, layer=name, driver="GPKG")

    layer("parcels", [box(0, 0, 100, 100), box(100, 0, 200, 100)], {"PID": ["P-1", "P-2"]})
    for name, geoms in impervious.items():
        layer(name, geoms)
    layer("driveways", [box(90, 40, 110, 50), box(140, 0, 160, 10), box(300, 0, 310, 10)])
    layer("row", [box(150, -10, 260, 110)])
    return path


@pytest.fixture
def synthetic_gpkg(tmp_path):
    """One GeoPackage with layers parcels, buildings, patios, driveways, row (EPSG:2249)."""
    return write_town(tmp_path / "town.gpkg", buildings=[box(10, 10, 30, 30)], patios=[box(20, 20, 40, 40)])


@pytest.fixture
def synthetic_gpkg_later(tmp_path):
    """The same town a year later: a 20×20 garage (400 ft²) added on P-2, the patio removed."""
    return write_town(tmp_path / "town-later.gpkg", buildings=[box(10, 10, 30, 30), box(110, 60, 130, 80)])


@pytest.fixture
def synthetic_assessor_csv(tmp_path):
    path = tmp_path / "assessor.csv"
    path.write_text(
        "PID,ADDR,OWNER,OWN_ST,OWN_CITY,LUC,UNITS,LOT\n"
        "P-1,1 Test St,Ann Able,1 Test St,\"Longmeadow, MA 01106\",101,1,10000\n"
        "P-2,3 Test St,Shops LLC,PO Box 1,\"Springfield, MA 01101\",325,,10000\n"
        "P-3,5 Test St,Ann Able,1 Test St,\"Longmeadow, MA 01106\",104,0,8000\n"
        ",7 Test St,Nobody,,,101,1,5000\n")
    return path


ASSESSOR_MAP = {"parcel_id": ["PID"], "address": ["ADDR"], "owner_name": ["OWNER"],
                "owner_address": ["OWN_ST", "OWN_CITY"], "land_use_code": ["LUC"], "dwelling_units": ["UNITS"],
                "lot_size": ["LOT"], "_lot_unit": "sqft"}
