"""URLs of the public portal (spread into stormwater.urls so each pattern is checked by tests/test_access.py)."""
from django.urls import path

from . import views

urlpatterns = [
    path("portal/", views.portal_home, name="portal_home"),
    path("portal/parcels/", views.portal_parcel_search, name="portal_parcel_search"),
    path("portal/parcels/<str:parcel_id>/", views.portal_parcel, name="portal_parcel"),
    path("portal/parcels/<str:parcel_id>/geojson", views.portal_parcel_geojson, name="portal_parcel_geojson"),
    path("portal/sign-up/", views.portal_signup, name="portal_signup"),
    path("portal/bills-by-email/", views.portal_paperless, name="portal_paperless"),
]
