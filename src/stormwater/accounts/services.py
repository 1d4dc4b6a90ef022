"""The people who sign in: create an account, change its role, deactivate and reactivate it, set its password,
reset its two-factor sign-in (issue 14). Each is one service (keyword-only, ``acting_user``, one transaction,
one audit row); ``stormwater user``, the Director's users page and sign-up call them.

``acting_user`` None means the system: the command line (whose ``why`` names the operating-system user).
"""
from __future__ import annotations

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.tokens import default_token_generator
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from stormwater.audit.services import audit_record

from .models import User
from .roles import Role

ERR_ROLE = "Unknown role {role!r}. The roles are: {roles}."
ERR_USERNAME_BLANK = "A username is required."
ERR_USERNAME_FORMAT = "A username is at most 150 letters, digits and . @ + - _ (no spaces)."
ERR_USERNAME_TAKEN = "The username {username!r} is taken (usernames are compared without regard to case)."
ERR_EMAIL = "{email!r} is not an e-mail address."
ERR_EMAIL_REQUIRED = ("An e-mail address is required: the link to choose or reset a password is e-mailed there.")
ERR_NO_SUCH_USER = "No account has the username {username!r}."
ERR_SAME_ROLE = "{username} already has the role {role}."
ERR_LAST_DIRECTOR = ("{username} is the only active Director. Make another person Director first: without one, "
                     "nobody can manage accounts or enter a rate resolution.")
ERR_SELF_DEACTIVATE = "You cannot deactivate your own account; another Director can."
ERR_ALREADY_INACTIVE = "{username} is already deactivated."
ERR_ALREADY_ACTIVE = "{username} is already active."
ERR_NO_TWO_FACTOR = "{username} has no two-factor sign-in set up; there is nothing to reset."

PASSWORD_RULES = ("At least 12 characters; not like your username, name or e-mail address; not a common "
                  "password; not only digits. A few unrelated words make a good one.")


class AccountError(ValueError):
    """A refusal with a message for the person (``field``: the form field it belongs to, if any)."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


def role_parse(role: str) -> Role:
    """A role by its name (``director``) or its label (``DPW Director``), without regard to case."""
    wanted = (role or "").strip().lower()
    for r in Role:
        if wanted in (r.value, r.label.lower()):
            return r
    raise AccountError(ERR_ROLE.format(role=role, roles=", ".join(Role.values)), "role")


def user_get_by_username(username: str) -> User:
    user = User.objects.filter(username__iexact=(username or "").strip()).first()
    if user is None:
        raise AccountError(ERR_NO_SUCH_USER.format(username=username), "username")
    return user


def password_check(password: str, user: User) -> None:
    """The settings' validators (length ≥ 12, not like the username/name/e-mail, not common, not all digits)."""
    try:
        validate_password(password, user)
    except ValidationError as e:
        raise AccountError(" ".join(e.messages), "password") from None


def _email_clean(email: str, role: str) -> str:
    email = (email or "").strip()
    if not email:
        if role == Role.OWNER:  # owners sign up with the code on their bill; an address is optional there
            return ""
        raise AccountError(ERR_EMAIL_REQUIRED, "email")
    try:
        validate_email(email)
    except ValidationError:
        raise AccountError(ERR_EMAIL.format(email=email), "email") from None
    return email


@transaction.atomic
def user_create(*, username: str, role: str, email: str, password: str | None, acting_user,
                first_name: str = "", last_name: str = "", why: str = "") -> User:
    """A new account with one role. ``password`` None: none is usable until the person chooses one by the
    e-mailed link (the Director's page sends it). A password is checked by the settings' validators."""
    username = (username or "").strip()
    if not username:
        raise AccountError(ERR_USERNAME_BLANK, "username")
    try:
        UnicodeUsernameValidator()(username)
        if len(username) > 150:
            raise ValidationError("too long")
    except ValidationError:
        raise AccountError(ERR_USERNAME_FORMAT, "username") from None
    the_role = role_parse(role)
    if User.objects.filter(username__iexact=username).exists():
        raise AccountError(ERR_USERNAME_TAKEN.format(username=username), "username")
    user = User(username=username, role=the_role, email=_email_clean(email, the_role),
                first_name=(first_name or "").strip()[:150], last_name=(last_name or "").strip()[:150])
    if password is None:
        user.set_unusable_password()
    else:
        password_check(password, user)
        user.set_password(password)
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:  # the same username created at the same moment
        raise AccountError(ERR_USERNAME_TAKEN.format(username=username), "username") from None
    audit_record(actor=acting_user, action="user.create", obj=user, why=why,
                 data={"username": user.username, "role": user.role, "email": user.email,
                       "password": "set" if password is not None else "to be chosen by e-mailed link"})
    return user


def _directors_locked():
    """Every active Director, row-locked: two concurrent demotions cannot leave the town without one."""
    directors = User.objects.select_for_update().filter(role=Role.DIRECTOR, is_active=True)
    return list(directors.values_list("pk", flat=True))


def _locked(user: User) -> User:
    return User.objects.select_for_update().get(pk=user.pk)


@transaction.atomic
def user_set_role(*, user: User, role: str, acting_user, why: str = "") -> User:
    """Change the role. The person's open sessions end (the session hash covers the role: models.User), so the
    new role's rules — two-factor sign-in, idle timeout — apply from their next sign-in."""
    the_role = role_parse(role)
    directors = _directors_locked()
    user = _locked(user)
    if user.role == the_role:
        raise AccountError(ERR_SAME_ROLE.format(username=user.username, role=the_role.value), "role")
    if user.role == Role.DIRECTOR and user.is_active and directors == [user.pk]:
        raise AccountError(ERR_LAST_DIRECTOR.format(username=user.username), "role")
    old = user.role
    user.role = the_role
    user.save(update_fields=["role"])
    audit_record(actor=acting_user, action="user.set_role", obj=user, why=why,
                 data={"username": user.username, "from": old, "to": user.role})
    return user


@transaction.atomic
def user_deactivate(*, user: User, acting_user, why: str = "") -> User:
    """No more sign-ins; open sessions end at the next request (Django refuses inactive users). Nothing is
    deleted: the person's records and audit rows keep pointing at the account."""
    directors = _directors_locked()
    user = _locked(user)
    if not user.is_active:
        raise AccountError(ERR_ALREADY_INACTIVE.format(username=user.username))
    if getattr(acting_user, "pk", None) == user.pk:
        raise AccountError(ERR_SELF_DEACTIVATE)
    if user.role == Role.DIRECTOR and directors == [user.pk]:
        raise AccountError(ERR_LAST_DIRECTOR.format(username=user.username))
    user.is_active = False
    user.save(update_fields=["is_active"])
    audit_record(actor=acting_user, action="user.deactivate", obj=user, why=why, data={"username": user.username})
    return user


@transaction.atomic
def user_reactivate(*, user: User, acting_user, why: str = "") -> User:
    user = _locked(user)
    if user.is_active:
        raise AccountError(ERR_ALREADY_ACTIVE.format(username=user.username))
    user.is_active = True
    user.save(update_fields=["is_active"])
    audit_record(actor=acting_user, action="user.reactivate", obj=user, why=why, data={"username": user.username})
    return user


PASSWORD_ACTIONS = {"change": "auth.password_change",   # the person, with their old password
                    "reset": "auth.password_reset",     # the person, by the e-mailed link
                    "admin": "user.set_password"}       # an administrator (stormwater user set-password)


ERR_PROFILE_LONG = "{field} is longer than {n} characters."


@transaction.atomic
def user_profile_set(*, user: User, first_name: str, last_name: str, credentials: str, acting_user) -> User:
    """One's name and professional credentials as printed on what one signs (an inspection report names the
    inspector and the inspector's credentials, Ch. 380 § 380-16 C(4)(f)[1][b]), e.g. "CPESC #1234"."""
    values = {"first_name": first_name.strip(), "last_name": last_name.strip(), "credentials": credentials.strip()}
    for field, label in (("first_name", "The first name"), ("last_name", "The last name"),
                         ("credentials", "Credentials")):
        n = User._meta.get_field(field).max_length
        if len(values[field]) > n:
            raise AccountError(ERR_PROFILE_LONG.format(field=label, n=n), field)
    user = _locked(user)
    before = {k: getattr(user, k) for k in values}
    for k, v in values.items():
        setattr(user, k, v)
    user.save(update_fields=list(values))
    audit_record(actor=acting_user, action="user.profile", obj=user, data={"before": before, "after": values})
    return user


@transaction.atomic
def user_password_set(*, user: User, password: str, acting_user, how: str, why: str = "") -> User:
    """Set a new password (checked by the validators). Every other session of the person ends (Django's
    session hash covers the password); the caller keeps the current one with update_session_auth_hash."""
    action = PASSWORD_ACTIONS[how]
    user = _locked(user)
    password_check(password, user)
    user.set_password(password)
    user.save(update_fields=["password"])
    audit_record(actor=acting_user, action=action, obj=user, why=why, data={"username": user.username})
    return user


@transaction.atomic
def user_two_factor_reset(*, user: User, acting_user, why: str = "") -> User:
    """Remove the person's authenticator app and recovery codes (a lost phone). If their role requires two-factor
    sign-in they set up a new app at their next sign-in; otherwise they sign in with the password alone."""
    from django_otp.plugins.otp_static.models import StaticDevice
    from django_otp.plugins.otp_totp.models import TOTPDevice

    user = _locked(user)
    had = TOTPDevice.objects.filter(user=user, confirmed=True).exists()
    if not had:
        raise AccountError(ERR_NO_TWO_FACTOR.format(username=user.username))
    removed = TOTPDevice.objects.filter(user=user).delete()[0] + StaticDevice.objects.filter(user=user).delete()[0]
    audit_record(actor=acting_user, action="user.two_factor_reset", obj=user, why=why,
                 data={"username": user.username, "rows_removed": removed})
    return user


ERR_NO_LINK = "{username} is deactivated or has no e-mail address: no link was sent."


@transaction.atomic
def user_password_link_send(*, user: User, acting_user, base_url: str, kind: str = "reset"):
    """E-mail the person a link to choose a password (``kind`` "new": a new account; "reset": sent by the
    Director). Django's reset token: one use, valid PASSWORD_RESET_TIMEOUT. The mail leaves after commit through
    notices.notice_email, whose record (never the link itself) shows whether the mail server took it.
    → that NoticeSent record."""
    from stormwater.notices.services import notice_email
    from stormwater.townconfig import town_config

    if not user.is_active or not user.email:
        raise AccountError(ERR_NO_LINK.format(username=user.username))
    path = reverse("password_reset_confirm", kwargs={"uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
                                                     "token": default_token_generator.make_token(user)})
    ctx = {"user": user, "link": base_url + path, "kind": kind, "town": town_config().name,
           "days": max(1, settings.PASSWORD_RESET_TIMEOUT // 86400)}
    audit_record(actor=acting_user, action="user.password_link_sent", obj=user,
                 data={"username": user.username, "email": user.email, "kind": kind})
    subject = render_to_string("accounts/email/set_password_subject.txt", ctx).strip()
    return notice_email(to=user.email, subject=subject, body=render_to_string("accounts/email/set_password.txt", ctx),
                        kind="password_link", obj=user)
