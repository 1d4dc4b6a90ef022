from django.urls import path, re_path

from . import api, payviews, testprocessor, views

urlpatterns = [
    # Paying online (issue 25): the confirmation, the processor's signed return, the built-in TEST processor
    path("pay/return/", payviews.pay_return, name="pay_return"),
    path("pay/test/", testprocessor.pay_test, name="pay_test"),
    path("pay/test/settlement.csv", testprocessor.pay_test_settlement, name="pay_test_settlement"),
    path("pay/<str:number>/", payviews.pay_confirm, name="pay_confirm"),
    path("collections/", views.collections_home, name="collections_home"),
    path("accounts/", views.account_list, name="account_list"),
    path("accounts/<str:number>/", views.account_statement, name="account_statement"),
    path("accounts/<str:number>/paperless/", views.account_paperless, name="account_paperless"),
    path("payments/", views.payment_list, name="payment_list"),
    path("payments/<int:payment_id>/reverse/", views.payment_reverse_view, name="payment_reverse"),
    path("collections/demands/", views.demands, name="demands"),
    path("collections/demands/<int:demand_id>/pdf/", views.demand_pdf, name="demand_pdf"),
    path("collections/commitments/", views.commitments, name="commitments"),
    path("collections/commitments/<int:commitment_id>/", views.commitment_detail, name="commitment_detail"),
    re_path(r"^collections/commitments/(?P<commitment_id>\d+)/export\.(?P<fmt>csv|xlsx|pdf)$",
            views.commitment_export, name="commitment_export"),
    path("collections/liens/<int:line_id>/paid/", views.lien_paid, name="lien_paid"),
    path("collections/back-bill/", views.back_bill, name="back_bill"),
    path("collections/close/", views.close_period, name="close_period"),
    path("collections/aging/", views.aging_report, {"which": "aging"}, name="aging"),
    re_path(r"^collections/aging\.(?P<fmt>csv|xlsx)$", views.aging_report, {"which": "aging"}, name="aging_export"),
    path("collections/delinquency/", views.aging_report, {"which": "delinquency"}, name="delinquency"),
    re_path(r"^collections/delinquency\.(?P<fmt>csv|xlsx)$", views.aging_report, {"which": "delinquency"},
            name="delinquency_export"),
    path("bill-runs/<int:run_id>/water-sewer.csv", views.water_sewer_export, name="water_sewer_export"),
    path("api/payments/", api.api_payment_post, name="api_payment_post"),
    path("api/payments/batch/", api.api_payment_batch, name="api_payment_batch"),
    path("api/payments/<int:payment_id>/reverse/", api.api_payment_reverse, name="api_payment_reverse"),
    path("api/accounts/<str:number>/", api.api_account, name="api_account"),
    path("api/demands/", api.api_demands, name="api_demands"),
    path("api/commitments/", api.api_commitments, name="api_commitments"),
    path("api/collections/aging/", api.api_aging, name="api_aging"),
]
