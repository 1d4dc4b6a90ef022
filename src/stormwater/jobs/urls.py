from django.urls import path

from . import api, views

urlpatterns = [
    path("jobs/", views.job_list, name="job_list"),
    path("jobs/<int:job_id>/", views.job_detail, name="job_detail"),
    path("jobs/<int:job_id>/file", views.job_file, name="job_file"),
    path("jobs/<int:job_id>/rerun/", views.job_rerun_view, name="job_rerun"),
    path("jobs/start/<str:kind>/", views.job_start_view, name="job_start"),
    path("api/jobs/", api.api_jobs, name="api_jobs"),
    path("api/jobs/<int:job_id>/", api.api_job_detail, name="api_job_detail"),
]
