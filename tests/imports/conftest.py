"""Bad files of the kinds towns receive (issue 20), built in each test's tmp_path."""
from __future__ import annotations

import pytest


GOOD_ASSESSOR = ("PID,ADDR,OWNER,OWN_ST,OWN_CITY,LUC,UNITS,LOT\n"
                 "P-1,1 Test St,Ann Able,1 Test St,\"Longmeadow, MA 01106\",101,1,10000\n"
                 "P-2,3 Test St,Shops LLC,PO Box 1,\"Springfield, MA 01101\",325,,10000\n"
                 "P-3,5 Test St,Ann Able,1 Test St,\"Longmeadow, MA 01106\",104,2,8000\n")


@pytest.fixture
def good_assessor(tmp_path):
    p = tmp_path / "assessor.csv"
    p.write_text(GOOD_ASSESSOR)
    return p


X0, Y0 = 740000.0, 2930000.0  # an origin in Longmeadow, MA State Plane ft (as tests/gis)


def box(x1, y1, x2, y2, *, scale=1.0, origin=(X0, Y0)):
    import shapely

    ox, oy = origin
    return shapely.box((ox + x1) * scale, (oy + y1) * scale, (ox + x2) * scale, (oy + y2) * scale)


def write_town(path, *, scale=1.0, origin=(X0, Y0), parcels=True, buildings=True, crs="EPSG:2249", driver="GPKG",
               **extra):
    """The two-parcel town of tests/gis/conftest.py (P-1, P-2: 10,000 ft² each; buildings 400 ft² on P-1, a garage
    400 ft² on P-2; a right-of-way over P-2's east half). ``scale`` 0.3048 writes metres labelled as feet."""
    import geopandas as gpd

    def b(*a):
        return box(*a, scale=scale, origin=origin)

    def layer(name, geoms, cols=None):
        gdf = gpd.GeoDataFrame(cols or {"k": list(range(1, len(geoms) + 1))}, geometry=geoms, crs=crs)
        gdf.to_file(path, layer=name, driver=driver)

    layer("parcels", [b(0, 0, 100, 100), b(100, 0, 200, 100)] if parcels else [],
          {"PID": ["P-1", "P-2"] if parcels else []})
    layer("buildings", [b(10, 10, 30, 30), b(110, 60, 130, 80)] if buildings else [])
    layer("row", [b(150, -10, 260, 110)])
    for name, geoms in extra.items():
        layer(name, [b(*g) for g in geoms])
    return path


@pytest.fixture
def assessed(db, good_assessor):
    """P-1 (101), P-2 (325), P-3 (104) on record with their lots (10,000 ft², 10,000, 8,000)."""
    from django.core.management import call_command

    call_command("gis", "assessor", str(good_assessor), "--map", "parcel_id=PID", "--map", "address=ADDR",
                 "--map", "owner_name=OWNER", "--map", "owner_address=OWN_ST,OWN_CITY", "--map", "land_use_code=LUC",
                 "--map", "dwelling_units=UNITS", "--map", "lot_size=LOT")
