from django.urls import path

from . import views

urlpatterns = [
    path("notices/", views.outbox, name="notice_outbox"),
    path("notices/<int:notice_id>/resolve/", views.notice_resolve_view, name="notice_resolve"),
]
