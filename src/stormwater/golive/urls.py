from django.urls import path

from . import views

urlpatterns = [
    path("collections/golive/", views.golive_balances, name="golive_balances"),
]
