"""URLs of the work queue (spread into stormwater.urls so each pattern is checked by tests/test_access.py)."""
from django.urls import path, re_path

from . import views

urlpatterns = [
    path("work-queue/", views.work_queue_page, name="work_queue"),
    path("work-queue/calendar/", views.work_queue_calendar, name="work_queue_calendar"),
    re_path(r"^work-queue/calendar/(?P<secret>[A-Za-z0-9_-]{1,200})\.ics$", views.work_queue_ical,
            name="work_queue_ical"),
    path("api/work-queue/", views.api_work_queue, name="api_work_queue"),
]
