from django.urls import include, path, re_path

from stormwater.accounts.urls import urlpatterns as accounts_urlpatterns
from stormwater.parcels import api as parcels_api
from stormwater.parcels import views as parcels_views
from stormwater.receivables import views as receivables_views
from stormwater.relief import api as relief_api
from stormwater.review import urls as review_urls
from stormwater.utility import api as utility_api
from stormwater.utility import views as utility_views
from stormwater.pages import health as page_health
from stormwater.pages import views as page_views

urlpatterns = [
    path("", page_views.home, name="home"),
    # What a monitor asks (issue 28, pages/health.py): liveness without the database; readiness of everything
    path("healthz", page_health.healthz, name="healthz"),
    path("readyz", page_health.readyz, name="readyz"),
    # What each case-number prefix means (issue 16) and the town map (parcels, permits, sites, BMPs).
    path("case-numbers/", page_views.case_numbers, name="case_numbers"),
    path("map/", page_views.town_map, name="town_map"),
    path("map/features.json", page_views.town_map_features, name="town_map_features"),
    # The Director's settings page (issue 30): what town.toml sets for the field pages, and how to change it.
    path("settings/", page_views.town_settings, name="town_settings"),
    # Sign-in (throttled; two-factor for staff), one's account, password reset, the Director's users page
    # (stormwater.accounts, issue 14): spread in, flat checked URLPatterns.
    *accounts_urlpatterns,
    # Parcels
    path("parcels/", parcels_views.parcel_list, name="parcel_list"),
    path("parcels/<str:parcel_id>/", parcels_views.parcel_detail, name="parcel_detail"),
    path("parcels/<str:parcel_id>/class/", parcels_views.parcel_class_override, name="parcel_class_override"),
    path("parcels/<str:parcel_id>/association/", parcels_views.parcel_association, name="parcel_association"),
    # Utility: rates, bill runs, bills
    path("rates/", utility_views.resolution_list, name="resolution_list"),
    path("rates/new/", utility_views.resolution_new, name="resolution_new"),
    path("bill-runs/", utility_views.bill_run_list, name="bill_run_list"),
    path("bill-runs/new/", utility_views.bill_run_new, name="bill_run_new"),
    path("bill-runs/<int:run_id>/", utility_views.bill_run_detail, name="bill_run_detail"),
    path("bill-runs/<int:run_id>/prepare/", utility_views.bill_run_prepare_view, name="bill_run_prepare"),
    path("bill-runs/<int:run_id>/approve/", utility_views.bill_run_approve_view, name="bill_run_approve"),
    path("bill-runs/<int:run_id>/discard/", utility_views.bill_run_discard_view, name="bill_run_discard"),
    path("bill-runs/<int:run_id>/void/", utility_views.bill_run_void_view, name="bill_run_void"),
    path("bill-runs/<int:run_id>/mailed/", utility_views.bill_run_mailed_view, name="bill_run_mailed"),
    re_path(r"^bill-runs/(?P<run_id>\d+)/export\.(?P<fmt>csv|xlsx)$", utility_views.bill_run_export,
            name="bill_run_export"),
    path("bills/", utility_views.bill_list, name="bill_list"),
    path("bills/<str:number>/", receivables_views.bill_detail, name="bill_detail"),  # reads collections
    path("bills/<str:number>/pdf/", utility_views.bill_download, name="bill_pdf"),
    path("billing-problems/", utility_views.billing_problems, name="billing_problems"),
    # JSON API
    path("api/calc/fee", utility_api.api_calc_fee, name="api_calc_fee"),
    path("api/calc/split", utility_api.api_calc_split, name="api_calc_split"),
    path("api/calc/interest", utility_api.api_calc_interest, name="api_calc_interest"),
    path("api/calc/deadline", relief_api.api_calc_deadline, name="api_calc_deadline"),
    re_path(r"^api/calc/(?P<name>runoff|retention|noaa-plus|peak|bmp)$", utility_api.api_calc_engineering,
            name="api_calc_engineering"),
    path("api/parcels/", parcels_api.api_parcel_list, name="api_parcel_list"),
    path("api/parcels/<str:parcel_id>/", parcels_api.api_parcel_detail, name="api_parcel_detail"),
    path("api/parcels/<str:parcel_id>/association/", parcels_api.api_parcel_association,
         name="api_parcel_association"),
    path("api/bills/<str:number>/", utility_api.api_bill_detail, name="api_bill_detail"),
    path("api/bill-runs/", utility_api.api_bill_run_issue, name="api_bill_run_issue"),
    path("api/bill-runs/<int:run_id>/", utility_api.api_bill_run_detail, name="api_bill_run_detail"),
    path("api/bill-runs/<int:run_id>/approve/", utility_api.api_bill_run_approve, name="api_bill_run_approve"),
    path("api/bill-runs/<int:run_id>/void/", utility_api.api_bill_run_void, name="api_bill_run_void"),
    path("api/bill-runs/<int:run_id>/discard/", utility_api.api_bill_run_discard, name="api_bill_run_discard"),
    # Engineering review (issue 7): spread, not include(), so each pattern is checked by test_access
    *review_urls.urlpatterns,
    # Apps with their own URL modules
    path("", include("stormwater.receivables.urls")),
]

# GIS (stormwater.gis): its own URL module, spread in so every pattern stays a flat, checked URLPattern.
from stormwater.gis.urls import urlpatterns as gis_urlpatterns  # noqa: E402
urlpatterns += gis_urlpatterns

# Imports (stormwater.imports, issue 20): spread in like GIS, flat checked URLPatterns.
from stormwater.imports.urls import urlpatterns as imports_urlpatterns  # noqa: E402
urlpatterns += imports_urlpatterns

# Stormwater Management Account (stormwater.fund): spread in like GIS, flat checked URLPatterns.
from stormwater.fund.urls import urlpatterns as fund_urlpatterns  # noqa: E402
urlpatterns += fund_urlpatterns

# Ch. 380 permits (stormwater.permits): spread in like GIS, flat checked URLPatterns.
from stormwater.permits.urls import urlpatterns as permits_urlpatterns  # noqa: E402
urlpatterns += permits_urlpatterns

# Ch. 295 Art. IV credits, abatements and appeals (stormwater.relief): spread in like GIS, flat checked URLPatterns.
from stormwater.relief.urls import urlpatterns as relief_urlpatterns  # noqa: E402
urlpatterns += relief_urlpatterns

# Ch. 380 construction oversight and stewardship (stormwater.construction, stormwater.stewardship): spread in.
from stormwater.construction.urls import urlpatterns as construction_urlpatterns  # noqa: E402
from stormwater.stewardship.urls import urlpatterns as stewardship_urlpatterns  # noqa: E402
urlpatterns += construction_urlpatterns + stewardship_urlpatterns

# The public portal (stormwater.portal, issue 9): spread in, flat checked URLPatterns.
from stormwater.portal.urls import urlpatterns as portal_urlpatterns  # noqa: E402
urlpatterns += portal_urlpatterns

# Reviewer's workbench (stormwater.workbench, issue 10): spread in, flat checked URLPatterns.
from stormwater.workbench.urls import urlpatterns as workbench_urlpatterns  # noqa: E402
urlpatterns += workbench_urlpatterns

# Background jobs (stormwater.jobs, issue 15): the job pages and /api/jobs/; spread in, flat checked URLPatterns.
from stormwater.jobs.urls import urlpatterns as jobs_urlpatterns  # noqa: E402
urlpatterns += jobs_urlpatterns

# The work queue (stormwater.workqueue, issue 16): every app's clocks for each role, as a page, JSON and a
# calendar feed; spread in, flat checked URLPatterns.
from stormwater.workqueue.urls import urlpatterns as workqueue_urlpatterns  # noqa: E402
urlpatterns += workqueue_urlpatterns

# The e-mail outbox for staff (stormwater.notices): notices to check; spread in, flat checked URLPatterns.
from stormwater.notices.urls import urlpatterns as notices_urlpatterns  # noqa: E402
urlpatterns += notices_urlpatterns
# Go-live (stormwater.golive, issue 32): the old system's open books brought in; spread in, flat checked URLPatterns.
from stormwater.golive.urls import urlpatterns as golive_urlpatterns  # noqa: E402
urlpatterns += golive_urlpatterns
# The JSON API's contract (stormwater.api, issue 15): OpenAPI document, reference page, API tokens.
from stormwater.api.urls import urlpatterns as api_urlpatterns  # noqa: E402
urlpatterns += api_urlpatterns

# Errors under /api/ answer JSON ({"error": …}); elsewhere Django's pages.
handler400 = "stormwater.api.views.handler400"
handler403 = "stormwater.api.views.handler403"
handler404 = "stormwater.api.views.handler404"
handler500 = "stormwater.api.views.handler500"

# The Collector's office (issue 17, stormwater.cashier): the cashier's window, receipts, batches, deposits, the
# daily cash report, refunds, the general ledger export and municipal lien certificates.
from stormwater.cashier.urls import urlpatterns as cashier_urlpatterns  # noqa: E402

urlpatterns += cashier_urlpatterns
