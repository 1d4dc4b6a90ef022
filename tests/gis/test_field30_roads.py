"""Issue 30, the field base map: the GIS import keeps the right-of-way (road) layer of a survey, and the field maps'
base (``selectors.base_geojson``, /field/base.geojson) draws those roads beside the parcel outlines, from this origin.
The demo town's roads and sidewalks are the North Cambridge sample's (demo_data/cambridge_north_sample.gpkg)."""
from __future__ import annotations

from datetime import date

import numpy as np
import shapely

from stormwater.gis.models import RightOfWayShape
from stormwater.gis.overlay import from_target_crs
from stormwater.gis.selectors import base_geojson
from stormwater.gis.services import LayerSpec, SurveySpec, survey_import

from .conftest import box
from .test_gis_services import _spec, imported  # noqa: F401  (the fixture: P-1..P-3 on record)


def _wgs84(x, y):
    p = from_target_crs(np.array([shapely.Point(*box(x, y, x + 1, y + 1).exterior.coords[0])]))[0]
    return p.y, p.x


def test_the_survey_keeps_its_right_of_way_layer(imported, personas, synthetic_gpkg):  # noqa: F811
    out = survey_import(spec=_spec(synthetic_gpkg, "buildings", "patios", "driveways"), name="2026 flyover",
                        surveyed_on=date(2026, 4, 1), acting_user=personas["staff"])
    roads = list(RightOfWayShape.objects.filter(survey=out.survey))
    assert [(r.layer, r.source_fid) for r in roads] == [("row", "1")]
    g = shapely.from_wkb(bytes(roads[0].geom_wkb))
    assert round(g.area) == 110 * 120 and g.equals(box(150, -10, 260, 110))
    assert (roads[0].minx, roads[0].miny, roads[0].maxx, roads[0].maxy) == g.bounds


def test_the_base_map_draws_the_roads_beside_the_parcels(imported, personas, synthetic_gpkg):  # noqa: F811
    survey_import(spec=_spec(synthetic_gpkg, "buildings"), name="2026 flyover", surveyed_on=date(2026, 4, 1),
                  acting_user=personas["staff"])
    fc = base_geojson(around=[_wgs84(50, 50)])
    kinds = sorted((f["properties"]["kind"], f["properties"].get("parcel_id") or f["properties"]["layer"])
                   for f in fc["features"])
    assert kinds == [("parcel", "P-1"), ("parcel", "P-2"), ("road", "row")]
    road = next(f for f in fc["features"] if f["properties"]["kind"] == "road")
    lon, lat = road["geometry"]["coordinates"][0][0]
    assert abs(lat - _wgs84(200, 50)[0]) < 0.001 and abs(lon - _wgs84(200, 50)[1]) < 0.001
    # far from every site: nothing of it is sent
    assert base_geojson(around=[(42.30, -72.20)])["features"] == []


def test_a_road_layer_from_a_geojson_file(imported, personas, synthetic_gpkg, tmp_path):  # noqa: F811
    """Any format the readers take (here GeoJSON, WGS 84 as GeoJSON is) as the right-of-way layer."""
    import geopandas as gpd

    gj = tmp_path / "streets.geojson"
    gpd.GeoDataFrame({"NAME": ["Test St"]}, geometry=[box(150, -10, 260, 110)], crs="EPSG:2249").to_crs(
        "EPSG:4326").to_file(gj, driver="GeoJSON")
    spec = SurveySpec(parcels=LayerSpec(str(synthetic_gpkg), "parcels"), id_field="PID",
                      impervious=[LayerSpec(str(synthetic_gpkg), "buildings")], right_of_way=[LayerSpec(str(gj))])
    out = survey_import(spec=spec, name="2026 flyover", surveyed_on=date(2026, 4, 1), acting_user=personas["staff"])
    (road,) = RightOfWayShape.objects.filter(survey=out.survey)
    assert road.layer == "streets" and abs(shapely.from_wkb(bytes(road.geom_wkb)).area - 13200) < 1


def test_the_same_survey_imported_again_gets_the_roads_it_did_not_keep(imported, personas, synthetic_gpkg):  # noqa: F811
    out = survey_import(spec=_spec(synthetic_gpkg, "buildings"), name="2026 flyover", surveyed_on=date(2026, 4, 1),
                        acting_user=personas["staff"])
    RightOfWayShape.objects.filter(survey=out.survey).delete()  # as a survey imported before issue 30 stands
    again = survey_import(spec=_spec(synthetic_gpkg, "buildings"), name="2026 flyover", surveyed_on=date(2026, 4, 1),
                          acting_user=personas["staff"])
    assert again.report.get("unchanged") and again.survey == out.survey
    assert RightOfWayShape.objects.filter(survey=out.survey).count() == 1
