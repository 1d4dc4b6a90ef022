"""URLs of the Stormwater Management Account, spliced into the root URLconf as plain patterns
(tests/test_access.py walks the root patterns and expects no nested resolvers)."""
from django.urls import path, re_path

from . import api, views

urlpatterns = [
    path("fund/", views.fund_home, name="fund_home"),
    path("fund/<int:fy>/", views.fund_overview, name="fund_overview"),
    path("fund/<int:fy>/budget/", views.fund_budget_edit, name="fund_budget_edit"),
    path("fund/<int:fy>/lines/new/", views.fund_line_new, name="fund_line_new"),
    path("fund/lines/<int:line_id>/", views.fund_line_edit, name="fund_line_edit"),
    path("fund/lines/<int:line_id>/delete/", views.fund_line_delete, name="fund_line_delete"),
    path("fund/<int:fy>/other-revenue/new/", views.fund_revenue_new, name="fund_revenue_new"),
    path("fund/other-revenue/<int:revenue_id>/", views.fund_revenue_edit, name="fund_revenue_edit"),
    path("fund/other-revenue/<int:revenue_id>/delete/", views.fund_revenue_delete, name="fund_revenue_delete"),
    path("fund/rate-model/", views.fund_rate_model, name="fund_rate_model"),
    path("fund/rate-model/adopt/", views.fund_rate_adopt, name="fund_rate_adopt"),
    path("fund/reports/receipts/", views.fund_receipts, name="fund_receipts"),
    re_path(r"^fund/reports/receipts\.(?P<fmt>csv|xlsx)$", views.fund_receipts_export, name="fund_receipts_export"),
    path("fund/reports/revenue-vs-budget/", views.fund_revenue_vs_budget, name="fund_revenue_vs_budget"),
    re_path(r"^fund/reports/revenue-vs-budget\.(?P<fmt>csv|xlsx)$", views.fund_revenue_vs_budget_export,
            name="fund_revenue_vs_budget_export"),
    # JSON API
    path("api/fund/<int:fy>/", api.api_fund_budget, name="api_fund_budget"),
    path("api/fund/<int:fy>/lines/", api.api_fund_line_create, name="api_fund_line_create"),
    path("api/fund/<int:fy>/other-revenue/", api.api_fund_revenue_create, name="api_fund_revenue_create"),
    path("api/fund/rate-model", api.api_fund_rate_model, name="api_fund_rate_model"),
    path("api/fund/rate-model/adopt", api.api_fund_rate_adopt, name="api_fund_rate_adopt"),
    path("api/fund/reports/receipts", api.api_fund_receipts, name="api_fund_receipts"),
    path("api/fund/reports/revenue-vs-budget", api.api_fund_revenue_vs_budget, name="api_fund_revenue_vs_budget"),
]
