"""URLs of stewardship (spread into stormwater.urls so each pattern is checked by test_access)."""
from django.urls import path

from . import views

P = "stewardship/<str:number>/"

urlpatterns = [
    path("stewardship/", views.site_list, name="site_list"),
    path("stewardship/new/", views.site_new, name="site_new"),
    path("stewardship/certifications/overdue/", views.certifications_overdue, name="certifications_overdue"),
    path("stewardship/ms4-report/", views.ms4_report, name="ms4_report"),
    path("stewardship/ms4-report.csv", views.ms4_report_csv, name="ms4_report_csv"),
    path(P, views.site_detail, name="site_detail"),
    path(P + "documents/<int:doc_id>/", views.site_document, name="site_document"),
    path(P + "parties/", views.site_party, name="site_party"),
    path(P + "plan/", views.site_plan, name="site_plan"),
    path(P + "plan/<int:plan_id>/record/", views.site_plan_record, name="site_plan_record"),
    path(P + "plan/<int:plan_id>/amend/", views.site_amend, name="site_amend"),
    path(P + "easements/", views.site_easement, name="site_easement"),
    path(P + "bmps/", views.site_bmp, name="site_bmp"),
    path(P + "bmps/<int:bmp_id>/", views.bmp_detail, name="bmp_detail"),
    path(P + "import/", views.site_import, name="site_import"),
    path(P + "certifications/", views.site_certification, name="site_certification"),
    path(P + "notices/", views.site_notice, name="site_notice"),
    path(P + "notices/preview/", views.site_notice_preview, name="site_notice_preview"),
    path(P + "notices/<str:notice_number>/", views.site_notice_act, name="site_notice_act"),
    path(P + "ownership/", views.site_ownership, name="site_ownership"),
    path("api/stewardship/ms4-report", views.api_ms4_report, name="api_ms4_report"),
    path("api/stewardship/<str:number>/", views.api_site_detail, name="api_site_detail"),
]
