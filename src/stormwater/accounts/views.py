"""Signing in and out, one's own account (password, two-factor), password reset by e-mail, and the Director's
users page (issue 14). Thin: each view parses, calls one service, renders.

Sign-in: the password (Django's LoginView, throttled per username + address and per address), then — for a
staff role that requires it or a person who set it up — the second step: a code from the authenticator app or
a recovery code (``login_two_factor``), or, the first time for a required role, setting the app up
(``login_two_factor_setup``). Nobody is signed in until the last step passes.
"""
from __future__ import annotations

import django_otp
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login as auth_login
from django.contrib.auth import update_session_auth_hash
from django.contrib.auth import views as auth_views
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.views.decorators.http import require_http_methods, require_POST

from stormwater.portal import throttle
from stormwater.townconfig import town_config

from . import signin, twofactor
from .access import public, require_perm
from .forms import (CodeForm, LoginForm, PasswordChangeForm, PasswordResetForm, ReasonForm, SetPasswordForm,
                    SetupCodeForm, UserAddForm, UserRoleForm)
from .lists import UserList
from .roles import Perm
from .selectors import FIRST_RUN_COMMAND, director_exists, sign_ins_recent, user_get, user_history
from .services import (AccountError, user_create, user_deactivate, user_password_link_send, user_password_set,
                       user_profile_set, user_reactivate, user_set_role, user_two_factor_reset)

MSG_THROTTLED = ("Too many failed attempts for this username from your network. For your security, sign-in is "
                 "paused for {minutes} minutes. If you forgot your password, use “Forgot your password?”.")
MSG_THROTTLED_IP = ("Too many failed sign-ins from your network address. For your security, sign-in from this "
                    "address is paused for {minutes} minutes. If you forgot your password, use “Forgot your "
                    "password?”, or call the Stormwater Division.")
MSG_RESET_THROTTLED = ("Too many password-reset requests from your network address. Please wait {minutes} "
                       "minutes, or call the Stormwater Division.")
MSG_SIGN_IN_AGAIN = "Please sign in again (the sign-in waited more than 10 minutes for the code, or was cancelled)."
MSG_TOO_MANY_CODES = "Too many wrong codes. Please sign in again with your password."


def _sign_in_refusal(username: str, ip: str) -> str:
    if throttle.throttled("login-ip", "", ip):
        return MSG_THROTTLED_IP.format(minutes=throttle.window_minutes())
    if throttle.throttled("login", username, ip):
        return MSG_THROTTLED.format(minutes=throttle.window_minutes())
    return ""


def _failure_note(username: str, ip: str) -> None:
    throttle.failure_note("login", username, ip)
    throttle.failure_note("login-ip", "", ip)


class LoginView(auth_views.LoginView):
    """Django's LoginView, throttled: LOGIN_THROTTLE_FAILURES failures for one username from one address, or
    LOGIN_THROTTLE_IP_FAILURES from one address over any usernames, within LOGIN_THROTTLE_WINDOW_SECONDS, then
    429 with a clear message (the password is not even checked) until the window passes."""

    template_name = "accounts/login.html"
    form_class = LoginForm

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["first_run"] = FIRST_RUN_COMMAND if not director_exists() else ""
        return ctx

    def post(self, request, *args, **kwargs):
        username = request.POST.get("username", "")
        refusal = _sign_in_refusal(username, throttle.client_ip(request))
        if refusal:
            signin.auth_login_failure_record(username=username, request=request, stage="password",
                                             reason="refused: sign-in paused (throttle)")
            form = self.get_form_class()(self.request)  # unbound: a throttled attempt never authenticates
            return self.render_to_response(self.get_context_data(form=form, throttled=refusal), status=429)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        username, password = self.request.POST.get("username", ""), self.request.POST.get("password", "")
        if username and password:
            _failure_note(username, throttle.client_ip(self.request))
            signin.auth_login_failure_record(username=username, request=self.request, stage="password",
                                             reason="wrong username or password, or the account is deactivated")
        return super().form_invalid(form)

    def form_valid(self, form):
        request, user = self.request, form.get_user()
        throttle.failures_clear("login", form.cleaned_data["username"], throttle.client_ip(request))
        if twofactor.needed_at_sign_in(user):
            signin.pending_start(request, user, next_url=self.get_success_url())
            step = "code" if twofactor.enrolled(user) else "set-up"
            signin.auth_password_accepted_record(user=user, request=request, next_step=f"two-factor {step}")
            return redirect("login_two_factor" if step == "code" else "login_two_factor_setup")
        return _finish(request, user, backend=user.backend, next_url=self.get_success_url(), method="password")


login_view = public(LoginView.as_view())


def _finish(request, user, *, backend: str, next_url: str, method: str, device=None):
    auth_login(request, user, backend=backend or None)
    if device is not None:
        django_otp.login(request, device)
    signin.pending_clear(request)
    signin.auth_login_record(user=user, request=request, method=method)
    safe = url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure())
    return redirect(next_url if next_url and safe else settings.LOGIN_REDIRECT_URL)


@public
@require_http_methods(["GET", "POST"])
def login_two_factor(request):
    pending = signin.pending_get(request)
    if pending is None:
        messages.info(request, MSG_SIGN_IN_AGAIN)
        return redirect("login")
    user, state = pending
    if not twofactor.enrolled(user):
        return redirect("login_two_factor_setup")
    form = CodeForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        ip = throttle.client_ip(request)
        refusal = _sign_in_refusal(user.username, ip)
        if refusal:
            form.add_error(None, refusal)
            status = 429
        else:
            try:
                device, how = twofactor.verify(user=user, token=form.cleaned_data["code"])
            except AccountError as e:
                _failure_note(user.username, ip)
                signin.auth_login_failure_record(username=user.username, request=request, stage="two-factor",
                                                 reason="wrong code")
                if signin.pending_failure(request) >= signin.PENDING_TRIES:
                    signin.pending_clear(request)
                    messages.error(request, MSG_TOO_MANY_CODES)
                    return redirect("login")
                form.add_error("code", str(e))
            else:
                throttle.failures_clear("login", user.username, ip)
                response = _finish(request, user, backend=state["backend"], next_url=state["next"],
                                   method=f"password + {how}", device=device)
                if how == "recovery code":
                    left = twofactor.recovery_codes_left(user)
                    messages.warning(request, f"You signed in with a recovery code; {left} left. If your phone is "
                                              "lost, ask the Director to reset your two-factor sign-in.")
                return response
    return render(request, "accounts/login_two_factor.html", {"form": form, "who": user}, status=status)


@public
@require_http_methods(["GET", "POST"])
def login_two_factor_setup(request):
    """First sign-in of a role that requires two-factor: set up the app before anything else."""
    pending = signin.pending_get(request)
    if pending is None:
        messages.info(request, MSG_SIGN_IN_AGAIN)
        return redirect("login")
    user, state = pending
    if twofactor.enrolled(user):  # never let a password alone replace an app that is set up
        return redirect("login_two_factor")
    device = twofactor.totp_device_pending(user=user)
    form = SetupCodeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            codes = twofactor.totp_device_confirm(user=user, token=form.cleaned_data["code"], acting_user=user)
        except AccountError as e:
            form.add_error("code", str(e))
        else:
            _finish(request, user, backend=state["backend"], next_url=state["next"],
                    method="password + new authenticator app",
                    device=twofactor.TOTPDevice.objects.get(pk=device.pk))
            request.session["accounts.new_recovery_codes"] = codes
            return redirect(f"{reverse('account_recovery_codes')}?{urlencode({'next': state['next'] or ''})}")
    return render(request, "accounts/two_factor_setup.html", _setup_ctx(device, form, who=user, first=True))


def _setup_ctx(device, form, *, who, first: bool) -> dict:
    return {"form": form, "who": who, "first": first, "qr": twofactor.totp_qr_data_uri(device),
            "key": twofactor.totp_key_text(device), "required_roles": town_config().totp_required_roles}


class LogoutView(auth_views.LogoutView):
    def post(self, request, *args, **kwargs):
        if request.user.is_authenticated:
            signin.auth_logout_record(user=request.user, request=request, reason="signed out")
        return super().post(request, *args, **kwargs)


logout_view = public(LogoutView.as_view())


# --- One's own account ------------------------------------------------------------------------------------

@require_perm()
def account(request):
    user = request.user
    return render(request, "accounts/account.html", {
        "two_factor": twofactor.enrolled(user), "required": twofactor.required_for(user),
        "required_roles": town_config().totp_required_roles, "codes_left": twofactor.recovery_codes_left(user),
        "idle_minutes": town_config().staff_idle_minutes, "recent": sign_ins_recent(user=user)})


@require_perm()
@require_POST
def account_profile(request):
    """One's name and credentials, printed with one's signature on inspection reports."""
    from stormwater.web.postdata import act

    return act(request, lambda: user_profile_set(
        user=request.user, first_name=request.POST.get("first_name", ""), last_name=request.POST.get("last_name", ""),
        credentials=request.POST.get("credentials", ""), acting_user=request.user), "Saved.", "/account/#profile")


@require_perm()
@require_http_methods(["GET", "POST"])
def account_two_factor(request):
    """A staff member sets up (or replaces) their authenticator app while signed in."""
    user = request.user
    if not user.is_staff_role:
        raise PermissionDenied(twofactor.ERR_NOT_STAFF)
    device = twofactor.totp_device_pending(user=user)
    form = SetupCodeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            codes = twofactor.totp_device_confirm(user=user, token=form.cleaned_data["code"], acting_user=user)
        except AccountError as e:
            form.add_error("code", str(e))
        else:
            django_otp.login(request, twofactor.TOTPDevice.objects.get(pk=device.pk))
            request.session["accounts.new_recovery_codes"] = codes
            return redirect("account_recovery_codes")
    return render(request, "accounts/two_factor_setup.html",
                  _setup_ctx(device, form, who=user, first=False) | {"replacing": twofactor.enrolled(user)})


@require_perm()
@require_http_methods(["GET", "POST"])
def account_recovery_codes(request):
    """Shows new recovery codes once (after set-up, or after asking for new ones with POST)."""
    if request.method == "POST":
        try:
            codes = twofactor.recovery_codes_new(user=request.user, acting_user=request.user)
        except AccountError as e:
            messages.error(request, str(e))
            return redirect("account")
        request.session["accounts.new_recovery_codes"] = codes
        return redirect("account_recovery_codes")
    codes = request.session.pop("accounts.new_recovery_codes", None)
    if not codes:
        return redirect("account")
    next_url = request.GET.get("next", "")
    if not url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()}):
        next_url = ""
    return render(request, "accounts/recovery_codes.html", {"codes": codes, "next": next_url or reverse("home")})


class PasswordChangeView(auth_views.PasswordChangeView):
    template_name = "accounts/password_change.html"
    form_class = PasswordChangeForm
    success_url = reverse_lazy("account")

    def form_valid(self, form):
        user = user_password_set(user=self.request.user, password=form.cleaned_data["new_password1"],
                                 acting_user=self.request.user, how="change")
        update_session_auth_hash(self.request, user)  # stay signed in here; every other session ends
        messages.success(self.request, "Your password is changed. Other places you were signed in are signed out.")
        return redirect(self.get_success_url())


password_change = require_perm()(PasswordChangeView.as_view())


# --- Password reset by e-mailed link (Django's views) ---------------------------------------------------------

class PasswordResetView(auth_views.PasswordResetView):
    template_name = "accounts/password_reset.html"
    form_class = PasswordResetForm
    email_template_name = "accounts/email/password_reset.txt"
    subject_template_name = "accounts/email/password_reset_subject.txt"

    def form_valid(self, form):
        ip = throttle.client_ip(self.request)
        if throttle.throttled("password-reset", "", ip):
            signin.auth_password_reset_request_record(email=form.cleaned_data["email"], request=self.request,
                                                      accounts=[], refused="too many requests from the address")
            form.add_error(None, MSG_RESET_THROTTLED.format(minutes=throttle.window_minutes()))
            return self.render_to_response(self.get_context_data(form=form), status=429)
        throttle.failure_note("password-reset", "", ip)
        response = super().form_valid(form)
        signin.auth_password_reset_request_record(email=form.cleaned_data["email"], request=self.request,
                                                  accounts=form.sent_to)
        return response


class PasswordResetDoneView(auth_views.PasswordResetDoneView):
    template_name = "accounts/password_reset_done.html"


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    template_name = "accounts/password_reset_confirm.html"
    form_class = SetPasswordForm

    def form_valid(self, form):
        user_password_set(user=self.user, password=form.cleaned_data["new_password1"], acting_user=self.user,
                          how="reset")
        del self.request.session[auth_views.INTERNAL_RESET_SESSION_TOKEN]
        return redirect(self.get_success_url())


class PasswordResetCompleteView(auth_views.PasswordResetCompleteView):
    template_name = "accounts/password_reset_complete.html"


password_reset = public(PasswordResetView.as_view())
password_reset_done = public(PasswordResetDoneView.as_view())
password_reset_confirm = public(PasswordResetConfirmView.as_view())
password_reset_complete = public(PasswordResetCompleteView.as_view())


# --- The Director's users page --------------------------------------------------------------------------------

def _base_url(request) -> str:
    return request.build_absolute_uri("/").rstrip("/")


@require_perm(Perm.USERS_MANAGE)
def users(request):
    """The Director's users page on the one list mechanism (``accounts.lists``): ``q``, ``role``, ``status``."""
    required = town_config().totp_required_roles
    lst = UserList(request, required_roles=required)
    return lst.export_response() or render(request, "accounts/users.html", {"lst": lst, "required_roles": required})


@require_perm(Perm.USERS_MANAGE)
@require_http_methods(["GET", "POST"])
def user_new(request):
    form = UserAddForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            user = user_create(username=d["username"], role=d["role"], email=d["email"], password=None,
                               first_name=d["first_name"], last_name=d["last_name"], acting_user=request.user)
        except AccountError as e:
            form.add_error(e.field if e.field in form.fields else None, str(e))
        else:
            notice = user_password_link_send(user=user, acting_user=request.user, base_url=_base_url(request),
                                             kind="new")
            _link_message(request, user, notice, f"Account {user.username} created ({user.get_role_display()}). "
                                                 "A link to choose a password was e-mailed to {email}.")
            return redirect("user_detail", user_id=user.pk)
    return render(request, "accounts/user_new.html", {"form": form})


@require_perm(Perm.USERS_MANAGE)
def user_detail(request, user_id: int):
    person = user_get(user_id=user_id)
    return render(request, "accounts/user_detail.html", {
        "person": person, "two_factor": twofactor.enrolled(person), "required": twofactor.required_for(person),
        "codes_left": twofactor.recovery_codes_left(person), "role_form": UserRoleForm(initial={"role": person.role}),
        "reason_form": ReasonForm(), "history": user_history(user=person)[:50],
        "password_usable": person.has_usable_password()})


def _user_act(request, user_id: int, fn, ok: str):
    person = user_get(user_id=user_id)
    form = ReasonForm(request.POST)
    why = form.cleaned_data["why"] if form.is_valid() else ""
    try:
        fn(person, why)
    except AccountError as e:  # refused: the person's page again with the form as it was sent, the error at its field
        from stormwater.web.postdata import refused

        return refused(request, e, reverse("user_detail", args=[person.pk]))
    messages.success(request, ok.format(username=person.username))
    return redirect("user_detail", user_id=person.pk)


@require_POST
@require_perm(Perm.USERS_MANAGE)
def user_role(request, user_id: int):
    role = request.POST.get("role", "")
    return _user_act(request, user_id,
                     lambda p, why: user_set_role(user=p, role=role, acting_user=request.user, why=why),
                     "{username}'s role is changed; their open sessions end.")


@require_POST
@require_perm(Perm.USERS_MANAGE)
def user_deactivate_view(request, user_id: int):
    return _user_act(request, user_id, lambda p, why: user_deactivate(user=p, acting_user=request.user, why=why),
                     "{username} is deactivated and can no longer sign in.")


@require_POST
@require_perm(Perm.USERS_MANAGE)
def user_reactivate_view(request, user_id: int):
    return _user_act(request, user_id, lambda p, why: user_reactivate(user=p, acting_user=request.user, why=why),
                     "{username} is active again.")


@require_POST
@require_perm(Perm.USERS_MANAGE)
def user_two_factor_reset_view(request, user_id: int):
    return _user_act(request, user_id,
                     lambda p, why: user_two_factor_reset(user=p, acting_user=request.user, why=why),
                     "{username}'s authenticator app and recovery codes are removed.")


@require_POST
@require_perm(Perm.USERS_MANAGE)
def user_password_link(request, user_id: int):
    person = user_get(user_id=user_id)
    try:
        notice = user_password_link_send(user=person, acting_user=request.user, base_url=_base_url(request))
    except AccountError as e:
        messages.error(request, str(e))
    else:
        _link_message(request, person, notice, "A link to choose a new password was e-mailed to {email}.")
    return redirect("user_detail", user_id=person.pk)


def _link_message(request, person, notice, ok: str) -> None:
    notice.refresh_from_db()  # sent after commit: did the mail server take it?
    # The outbox (notices/outbox.py): "failed" = the mail server refused it; "unknown" = its answer was lost.
    # A password link is harmless to send twice, so both say: check the mail settings and send it again.
    if notice.status in ("failed", "unknown"):
        said = "could not be sent" if notice.status == "failed" else "may not have been sent"
        messages.error(request, f"The e-mail to {person.email} {said} ({notice.error[:200]}). Check the "
                                "mail settings, then use “E-mail a link to choose a password” on this page.")
    else:
        messages.success(request, ok.format(email=person.email))
