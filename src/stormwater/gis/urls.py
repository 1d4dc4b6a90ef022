from django.urls import path, re_path

from . import api, views

urlpatterns = [
    path("gis/", views.gis_home, name="gis_home"),
    path("gis/imports/new/", views.gis_import_new, name="gis_import_new"),
    path("gis/imports/<int:import_id>/", views.gis_import_detail, name="gis_import_detail"),
    path("gis/imports/<int:import_id>/commit/", views.gis_import_commit, name="gis_import_commit"),
    path("gis/surveys/<int:survey_id>/", views.gis_survey_detail, name="gis_survey_detail"),
    path("gis/surveys/<int:survey_id>/eru/", views.gis_survey_eru, name="gis_survey_eru"),
    re_path(r"^gis/surveys/(?P<survey_id>\d+)/export\.(?P<fmt>csv|gpkg)$", views.gis_survey_export,
            name="gis_survey_export"),
    path("gis/changes/", views.gis_changes, name="gis_changes"),
    path("api/gis/parcels/<str:parcel_id>/geojson", api.api_parcel_geojson, name="api_gis_parcel_geojson"),
    path("api/gis/surveys/<int:survey_id>/eru", api.api_survey_eru, name="api_gis_survey_eru"),
    path("api/gis/layers/", api.api_layers_import, name="api_gis_layers_import"),
    path("api/gis/changes/<int:from_id>/<int:to_id>", api.api_changes, name="api_gis_changes"),
    path("api/gis/changes/<int:from_id>/<int:to_id>/geojson", api.api_changes_geojson,
         name="api_gis_changes_geojson"),
]
