"""URLs of construction oversight (spread into stormwater.urls so each pattern is checked by test_access)."""
from django.urls import path

from . import api, fieldviews, views

P = "construction/<str:number>/"

urlpatterns = [
    path("construction/", views.construction_list, name="construction_list"),
    path("construction/open/", views.construction_open, name="construction_open"),
    path(P, views.construction_detail, name="construction_detail"),
    path(P + "documents/<int:doc_id>/", views.construction_document, name="construction_document"),
    path(P + "report/", views.construction_report, name="construction_report"),
    path(P + "meeting/", views.construction_meeting, name="construction_meeting"),
    path(P + "plan-on-site/", views.construction_plan_on_site, name="construction_plan_on_site"),
    path(P + "conditions/", views.construction_conditions, name="construction_conditions"),
    path(P + "start/", views.construction_start, name="construction_start"),
    path(P + "rain/", views.construction_rain, name="construction_rain"),
    path(P + "notice/", views.construction_notice, name="construction_notice"),
    path(P + "punch/<int:item_id>/done/", views.construction_punch_done, name="construction_punch_done"),
    path(P + "areas/", views.construction_area, name="construction_area"),
    path(P + "violations/", views.construction_violation, name="construction_violation"),
    path(P + "violations/<int:violation_id>/corrected/", views.construction_violation_corrected,
         name="construction_violation_corrected"),
    path(P + "violations/<int:violation_id>/approve/", views.construction_violation_approve,
         name="construction_violation_approve"),
    path(P + "stop-work/", views.construction_stop_work, name="construction_stop_work"),
    path(P + "stop-work/lift/", views.construction_stop_work_lift, name="construction_stop_work_lift"),
    path(P + "enforcement/", views.construction_enforcement, name="construction_enforcement"),
    path(P + "surety/", views.construction_surety, name="construction_surety"),
    path(P + "as-built/", views.construction_as_built, name="construction_as_built"),
    path(P + "as-built/<int:as_built_id>/accept/", views.construction_as_built_accept,
         name="construction_as_built_accept"),
    path(P + "certificate/", views.construction_certificate, name="construction_certificate"),
    path(P + "certificate/preview/", views.construction_certificate_preview, name="construction_certificate_preview"),
    path(P + "inspections/<int:inspection_id>/", fieldviews.construction_inspection, name="construction_inspection"),
    path(P + "photos/<int:photo_id>/", fieldviews.construction_photo, name="construction_photo"),
    path(P + "photos/<int:photo_id>/thumb/", fieldviews.construction_photo, {"size": "thumb"},
         name="construction_photo_thumb"),
    path(P + "controls/", fieldviews.construction_controls, name="construction_controls"),
    path(P + "position/", fieldviews.construction_position, name="construction_position"),
    # The inspector's day on a phone (issue 18): everything under /field/ is in the service worker's scope.
    path("field/", fieldviews.field_home, name="field_home"),
    path("field/today/", fieldviews.field_today, name="field_today"),
    path("field/week/", fieldviews.field_week, name="field_week"),
    path("field/outbox/", fieldviews.field_outbox, name="field_outbox"),
    path("field/reports/", fieldviews.field_report_submit, name="field_report_submit"),
    path("field/sw.js", fieldviews.field_service_worker, name="field_service_worker"),
    path("field/manifest.webmanifest", fieldviews.field_manifest, name="field_manifest"),
    path("field/<str:number>/report/", fieldviews.field_report, name="field_report"),
    path("api/construction/", api.api_construction_list, name="api_construction_list"),
    path("api/construction/<str:number>/", api.api_construction_detail, name="api_construction_detail"),
]
