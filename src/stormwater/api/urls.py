from django.urls import path

from . import views

urlpatterns = [
    path("api/openapi.json", views.api_openapi, name="api_openapi"),
    path("api/docs/", views.api_docs, name="api_docs"),
    path("api-tokens/", views.api_tokens_page, name="api_tokens"),
    path("api-tokens/<int:token_id>/revoke/", views.api_token_revoke_view, name="api_token_revoke"),
]
