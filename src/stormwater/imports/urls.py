from django.urls import path

from . import api, views

urlpatterns = [
    path("imports/", views.imports_home, name="imports_home"),
    path("imports/water-sewer/", views.water_sewer_import, name="imports_water_sewer"),
    path("api/imports/", api.api_import_records, name="api_import_records"),
    path("api/imports/water-sewer/", api.api_water_sewer_import, name="api_imports_water_sewer"),
    path("api/imports/assessor/", api.api_assessor_import, name="api_imports_assessor"),
]
