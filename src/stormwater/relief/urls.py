"""URLs of relief (spread into stormwater.urls so each pattern is checked by tests/test_access.py)."""
from django.urls import path

from . import api, views

R = "relief/<str:number>/"

urlpatterns = [
    path("relief/", views.relief_home, name="relief_home"),
    path("relief/policy/", views.relief_policy, name="relief_policy"),
    path("relief/policy/demo/", views.relief_policy_demo, name="relief_policy_demo"),
    path("relief/credits/new/", views.credit_new, name="relief_credit_new"),
    path("relief/abatements/new/", views.abatement_new, name="relief_abatement_new"),
    path("relief/lien-abatements/new/", views.lien_new, name="relief_lien_new"),
    path(R, views.relief_detail, name="relief_detail"),
    path(R + "documents/<int:doc_id>/", views.relief_document, name="relief_document"),
    path(R + "upload/", views.relief_upload, name="relief_upload"),
    path(R + "act/<str:action>/", views.relief_act, name="relief_act"),
    path(R + "preview/<str:action>/", views.relief_preview, name="relief_preview"),
    # JSON API
    path("api/relief/", api.api_relief_list, name="api_relief_list"),
    path("api/relief/queue", api.api_relief_queue, name="api_relief_queue"),
    path("api/relief/abatements", api.api_abatement_apply, name="api_abatement_apply"),
    path("api/relief/credits", api.api_credit_apply, name="api_credit_apply"),
    path("api/relief/<str:number>/", api.api_relief_detail, name="api_relief_detail"),
    path("api/relief/<str:number>/<str:action>", api.api_relief_act, name="api_relief_act"),
]
