"""URLs of the engineering review. Spread into the root urlpatterns (not include()) so every pattern
stays a plain URLPattern that tests/test_access.py checks for its guard."""
from django.urls import path, re_path

from . import api, views, views_compare, views_sheets

urlpatterns = [
    path("reviews/", views.review_list, name="review_list"),
    path("reviews/new/", views.review_new, name="review_new"),
    path("reviews/new/form/", views.review_form, name="review_form"),
    path("reviews/import/swmm/", views.review_import_swmm, name="review_import_swmm"),
    path("reviews/<int:review_id>/form/", views.review_form, name="review_form_from"),
    path("reviews/<int:review_id>/", views.review_detail, name="review_detail"),
    re_path(r"^reviews/(?P<review_id>\d+)/report\.pdf$", views.review_report_pdf, name="review_pdf"),
    path("reviews/<int:review_id>/applicant/", views_compare.review_applicant_figures, name="review_applicant_figures"),
    path("reviews/<int:review_id>/input/", views.review_input, name="review_input"),
    path("reviews/<int:review_id>/plots/<str:storm>/<str:node>.svg", views.review_plot, name="review_plot"),
    re_path(r"^reviews/(?P<review_id>\d+)/results\.json$", views.review_results_json, name="review_results_json"),
    path("reviews/<int:review_id>/sheets/", views_sheets.review_sheets, name="review_sheets"),
    re_path(r"^reviews/(?P<review_id>\d+)/sheets/(?P<set_id>\d+)\.pdf$", views_sheets.review_sheet_pdf,
            name="review_sheet_pdf"),
    path("reviews/<int:review_id>/letter/", views_sheets.review_letter, name="review_letter"),
    re_path(r"^reviews/(?P<review_id>\d+)/letter\.pdf$", views_sheets.review_letter_pdf, name="review_letter_pdf"),
    path("reviews/<int:review_id>/attach-case/", views_sheets.review_attach_case, name="review_attach_case"),
    path("reviews/<int:review_id>/hydrocad/", views_sheets.review_hydrocad_upload, name="review_hydrocad_upload"),
    path("permits/<str:number>/plan-sheets/", views_sheets.permit_plan_sheets, name="permit_plan_sheets"),
    path("reviews/bmp-tables/", views.bmp_table_list, name="bmp_table_list"),
    path("reviews/bmp-tables/new/", views.bmp_table_new, name="bmp_table_new"),
    path("reviews/bmp-tables/<int:table_id>/", views.bmp_table_detail, name="bmp_table_detail"),
    path("reviews/bmp-tables/<int:table_id>/csv/", views.bmp_table_csv, name="bmp_table_csv"),
    path("reviews/bmp-tables/<int:table_id>/retire/", views.bmp_table_retire_view, name="bmp_table_retire"),
    path("api/reviews/", api.api_review_run, name="api_review_run"),
    path("api/reviews/<int:review_id>/", api.api_review_detail, name="api_review_detail"),
    path("api/bmp-tables/", api.api_bmp_tables, name="api_bmp_tables"),
]
