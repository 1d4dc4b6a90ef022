"""URLs of the workbench (spread into stormwater.urls so each pattern is checked by test_access)."""
from django.urls import path

from . import api, views

W = "permits/<str:number>/workbench/"

urlpatterns = [
    path(W, views.workbench_home, name="workbench_home"),
    path(W + "raise/", views.workbench_raise, name="workbench_raise"),
    path(W + "waiver/", views.workbench_waiver, name="workbench_waiver"),
    path(W + "summary/", views.workbench_summary, name="workbench_summary"),
    path(W + "summary.pdf", views.workbench_summary_pdf, name="workbench_summary_pdf"),
    path(W + "summary/keep/", views.workbench_summary_keep, name="workbench_summary_keep"),
    path(W + "decide/", views.workbench_decide, name="workbench_decide"),
    path(W + "items/<str:key>/", views.workbench_item, name="workbench_item"),
    path(W + "items/<str:key>/record/", views.workbench_item_record, name="workbench_item_record"),
    path(W + "<str:checklist>/", views.workbench_checklist, name="workbench_checklist"),
    path(W + "<str:checklist>/record/", views.workbench_checklist_record, name="workbench_checklist_record"),
    path("pre-application/", views.meeting_list, name="meeting_list"),
    path("pre-application/new/", views.meeting_new, name="meeting_new"),
    path("pre-application/<int:meeting_id>/", views.meeting_detail, name="meeting_detail"),
    path("pre-application/<int:meeting_id>/attendees/", views.meeting_attendee, name="meeting_attendee"),
    path("pre-application/<int:meeting_id>/record/", views.meeting_update, name="meeting_update"),
    path("pre-application/<int:meeting_id>/lid/", views.meeting_lid, name="meeting_lid"),
    path("api/permits/<str:number>/workbench/", api.api_workbench, name="api_workbench"),
    path("api/permits/<str:number>/workbench/findings", api.api_workbench_findings, name="api_workbench_findings"),
]
