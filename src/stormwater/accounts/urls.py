"""URLs of sign-in, one's own account, password reset and the Director's users page (spread into
stormwater.urls so each pattern is checked by tests/test_access.py)."""
from django.urls import path

from . import signupviews, views

urlpatterns = [
    path("login/", views.login_view, name="login"),
    path("login/two-factor/", views.login_two_factor, name="login_two_factor"),
    path("login/two-factor/set-up/", views.login_two_factor_setup, name="login_two_factor_setup"),
    path("logout/", views.logout_view, name="logout"),
    path("sign-up/", signupviews.professional_signup_view, name="professional_signup"),
    path("sign-up/sent/", signupviews.professional_signup_sent, name="professional_signup_sent"),
    path("account/", views.account, name="account"),
    path("account/password/", views.password_change, name="password_change"),
    path("account/profile/", views.account_profile, name="account_profile"),
    path("account/two-factor/", views.account_two_factor, name="account_two_factor"),
    path("account/two-factor/recovery-codes/", views.account_recovery_codes, name="account_recovery_codes"),
    path("password-reset/", views.password_reset, name="password_reset"),
    path("password-reset/sent/", views.password_reset_done, name="password_reset_done"),
    path("password-reset/<uidb64>/<token>/", views.password_reset_confirm, name="password_reset_confirm"),
    path("password-reset/done/", views.password_reset_complete, name="password_reset_complete"),
    path("users/", views.users, name="user_list"),
    path("users/new/", views.user_new, name="user_new"),
    path("users/<int:user_id>/", views.user_detail, name="user_detail"),
    path("users/<int:user_id>/role/", views.user_role, name="user_role"),
    path("users/<int:user_id>/deactivate/", views.user_deactivate_view, name="user_deactivate"),
    path("users/<int:user_id>/reactivate/", views.user_reactivate_view, name="user_reactivate"),
    path("users/<int:user_id>/two-factor-reset/", views.user_two_factor_reset_view, name="user_two_factor_reset"),
    path("users/<int:user_id>/password-link/", views.user_password_link, name="user_password_link"),
]
