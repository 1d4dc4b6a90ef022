from __future__ import annotations

from django import forms
from django.contrib.auth import forms as auth_forms
from django.contrib.auth import get_user_model

from stormwater.portal.forms import DescribedForm

from .roles import Role
from .services import PASSWORD_RULES


class LoginForm(auth_forms.AuthenticationForm):
    pass


class CodeForm(DescribedForm):
    code = forms.CharField(
        label="Code", max_length=40, strip=True,
        help_text="The 6-digit code your authenticator app shows now. Lost your phone? Enter one of your "
                  "recovery codes instead.",
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "autocapitalize": "off",
                                      "spellcheck": "false", "autofocus": True}))


class SetupCodeForm(DescribedForm):
    code = forms.CharField(
        label="Code from the app", max_length=12, strip=True,
        help_text="After adding the account, the app shows a 6-digit code that changes every 30 seconds.",
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric"}))


class _RulesAtTheNewPassword:
    """Django files the validators' refusals under the confirmation field; the rules are shown at the first
    field, so its refusals go there too (the person reads the error next to the rules it breaks)."""

    def clean(self):
        self.validate_passwords("new_password1", "new_password2")
        if "new_password2" not in self.errors:
            self.validate_password_for_user(self.user, "new_password1")
        return self.cleaned_data


def _new_password_help(form):
    for name in ("new_password1",):
        form.fields[name].help_text = PASSWORD_RULES
    form.fields["new_password2"].help_text = ""
    form.fields["new_password2"].label = "New password again"


class PasswordChangeForm(_RulesAtTheNewPassword, DescribedForm, auth_forms.PasswordChangeForm):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _new_password_help(self)
        self.fields["old_password"].label = "Current password"
        self.fields["old_password"].widget.attrs.pop("autofocus", None)


class SetPasswordForm(_RulesAtTheNewPassword, DescribedForm, auth_forms.SetPasswordForm):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _new_password_help(self)


class PasswordResetForm(DescribedForm, auth_forms.PasswordResetForm):
    """Django's, except that an account whose password was never chosen (created on the Director's page, its
    link lost or expired) may also get a link: every account here signs in with a password of its own."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["email"].label = "Your e-mail address"
        self.fields["email"].help_text = "The address on your account. We send a link to choose a new password."
        self.sent_to: list = []

    def get_users(self, email):
        users = [u for u in get_user_model()._default_manager.filter(email__iexact=email, is_active=True)
                 if u.email.casefold() == email.casefold()]
        self.sent_to = users
        return users


class UserAddForm(DescribedForm):
    username = forms.RegexField(label="Username", max_length=150, regex=r"^[\w.@+-]+$",
                                error_messages={"invalid": "Use letters, digits and . @ + - _ only."},
                                widget=forms.TextInput(attrs={"autocomplete": "off"}))
    first_name = forms.CharField(label="First name", max_length=150, required=False)
    last_name = forms.CharField(label="Last name", max_length=150, required=False)
    email = forms.EmailField(label="E-mail address",
                             help_text="A link to choose a password is sent here; it works for 3 days.")
    role = forms.ChoiceField(label="Role", choices=Role.choices, initial=Role.STAFF)


class UserRoleForm(DescribedForm):
    role = forms.ChoiceField(label="New role", choices=Role.choices)
    why = forms.CharField(label="Reason (kept in the history)", max_length=500, required=False)


class ReasonForm(DescribedForm):
    why = forms.CharField(label="Reason (kept in the history)", max_length=500, required=False)


class UserFilterForm(forms.Form):
    STATUS = [("active", "Active"), ("inactive", "Deactivated"), ("all", "All")]
    q = forms.CharField(label="Search", required=False, max_length=100)
    role = forms.ChoiceField(label="Role", required=False, choices=[("", "Staff roles"), ("all", "All roles"),
                                                                    *Role.choices])
    status = forms.ChoiceField(label="Status", required=False, choices=STATUS)
