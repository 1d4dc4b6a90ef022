"""URLs of the permit file (included from stormwater.urls)."""
from django.urls import path

from . import api, views

P = "permits/<str:number>/"

urlpatterns = [
    path("permits/", views.permit_list, name="permit_list"),
    path("permits/applicability/", views.permit_applicability, name="permit_applicability"),
    path("permits/new/", views.permit_new, name="permit_new"),
    path("permits/rule-hearings/", views.rule_hearings, name="rule_hearings"),
    path("permits/rule-hearings/<int:hearing_id>/notice.pdf", views.rule_hearing_notice, name="rule_hearing_notice"),
    path(P, views.permit_detail, name="permit_detail"),
    path(P + "documents/<int:doc_id>/", views.permit_document, name="permit_document"),
    path(P + "upload/", views.permit_upload, name="permit_upload"),
    path(P + "file/", views.permit_file_view, name="permit_file"),
    path(P + "withdraw/", views.permit_withdraw_view, name="permit_withdraw"),
    path(P + "abutters/", views.permit_abutters, name="permit_abutters"),
    path(P + "abutters/mailed/", views.permit_abutters_mailed, name="permit_abutters_mailed"),
    path(P + "abutters/letters.pdf", views.permit_abutter_letters, name="permit_abutter_letters"),
    path(P + "abutters/labels.pdf", views.permit_abutter_labels, name="permit_abutter_labels"),
    path(P + "checklist/<str:key>/confirm/", views.permit_checklist_confirm, name="permit_checklist_confirm"),
    path(P + "fees-paid/", views.permit_fees_paid_view, name="permit_fees_paid"),
    path(P + "complete/", views.permit_complete, name="permit_complete"),
    path(P + "incomplete/", views.permit_incomplete, name="permit_incomplete"),
    path(P + "items-received/", views.permit_items_received_view, name="permit_items_received"),
    path(P + "deny-incomplete/", views.permit_deny_incomplete_view, name="permit_deny_incomplete"),
    path(P + "info-request/", views.permit_info_request, name="permit_info_request"),
    path(P + "info-response/", views.permit_info_response, name="permit_info_response"),
    path(P + "extend/", views.permit_extend_view, name="permit_extend"),
    path(P + "consultant/", views.permit_consultant_select, name="permit_consultant_select"),
    path(P + "consultant/appeal/", views.permit_consultant_appeal, name="permit_consultant_appeal"),
    path(P + "consultant/appeal/decide/", views.permit_consultant_appeal_decide, name="permit_consultant_appeal_decide"),
    path(P + "consultant/deny/", views.permit_deny_nonpayment_view, name="permit_deny_nonpayment"),
    path(P + "account/", views.permit_account_entry, name="permit_account_entry"),
    path(P + "account/expenditure/", views.permit_account_expenditure, name="permit_account_expenditure"),
    path(P + "account/report.pdf", views.permit_account_report, name="permit_account_report"),
    path(P + "decide/", views.permit_decide_view, name="permit_decide"),
    path(P + "close/", views.permit_close_view, name="permit_close"),
    path(P + "segmentation/", views.permit_segmentation, name="permit_segmentation"),
    path(P + "changes/", views.permit_change_notify, name="permit_change_notify"),
    path(P + "changes/<int:change_id>/determine/", views.permit_change_determine, name="permit_change_determine"),
    path(P + "start/", views.permit_start_record, name="permit_start_record"),
    path(P + "start/extend/", views.permit_start_extend, name="permit_start_extend"),
    path(P + "waivers/", views.permit_waiver_request, name="permit_waiver_request"),
    path(P + "waivers/<str:waiver_number>/respond/", views.permit_waiver_respond, name="permit_waiver_respond"),
    path(P + "waivers/<str:waiver_number>/act/", views.permit_waiver_act, name="permit_waiver_act"),
    # JSON API
    path("api/permits/", api.api_permit_list, name="api_permit_list"),
    path("api/permits/applicability", api.api_permit_applicability, name="api_permit_applicability"),
    path("api/permits/<str:number>/", api.api_permit_detail, name="api_permit_detail"),
]
