from django.urls import path, re_path

from . import views

urlpatterns = [
    path("cashier/", views.window, name="cashier_window"),
    path("cashier/scan/", views.scan, name="cashier_scan"),
    path("cashier/accounts/<str:number>/", views.account, name="cashier_account"),
    path("cashier/receipts/<int:receipt_id>/", views.receipt, name="cashier_receipt"),
    path("cashier/receipts/<int:receipt_id>/pdf/", views.receipt_download, name="cashier_receipt_pdf"),
    path("cashier/receipts/<int:receipt_id>/email/", views.receipt_send, name="cashier_receipt_email"),
    path("cashier/batches/", views.batches, name="cashier_batches"),
    path("cashier/batches/<int:batch_id>/", views.batch_detail, name="cashier_batch"),
    path("cashier/batches/<int:batch_id>/approve/", views.batch_approve, name="cashier_batch_approve"),
    path("cashier/deposits/", views.deposits, name="cashier_deposits"),
    re_path(r"^cashier/deposits\.(?P<fmt_>csv|xlsx)$", views.deposits, name="cashier_deposits_export"),
    path("cashier/daily/", views.daily, name="cashier_daily"),
    re_path(r"^cashier/daily\.(?P<fmt_>csv|xlsx)$", views.daily, name="cashier_daily_export"),
]

urlpatterns += [
    path("cashier/refunds/", views.refunds, name="cashier_refunds"),
    path("cashier/accounts/<str:number>/refund/", views.refund_new, name="cashier_refund_new"),
    re_path(r"^cashier/refunds/(?P<voucher_id>\d+)/(?P<decision>approve|reject)/$", views.refund_decide,
            name="cashier_refund_decide"),
    path("cashier/general-ledger/", views.gl_export, name="cashier_gl"),
    re_path(r"^cashier/general-ledger\.(?P<fmt_>csv|xlsx)$", views.gl_export, name="cashier_gl_export"),
    path("cashier/lien-certificates/", views.liens, name="cashier_liens"),
    path("lien-certificates/request/", views.lien_request_online, name="lien_certificate_request"),
    path("lien-certificates/<int:cert_id>/", views.lien_detail, name="cashier_lien"),
    path("lien-certificates/<int:cert_id>/fee/", views.lien_fee, name="cashier_lien_fee"),
    path("lien-certificates/<int:cert_id>/pdf/", views.lien_pdf, name="cashier_lien_pdf"),
]

from . import api  # noqa: E402

urlpatterns += [
    path("api/receipts/", api.api_receipts, name="api_receipts"),
    path("api/lien-certificates/", api.api_lien_certificates, name="api_lien_certificates"),
    path("api/lien-certificates/<int:cert_id>/", api.api_lien_certificate, name="api_lien_certificate"),
]
