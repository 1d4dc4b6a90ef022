from __future__ import annotations

from django.db.models import Exists, OuterRef, Q, QuerySet
from django.shortcuts import get_object_or_404
from django_otp.plugins.otp_totp.models import TOTPDevice

from stormwater.audit.models import AuditEvent

from .models import User
from .roles import Role

STAFF_ROLES = [r.value for r in Role if r not in (Role.OWNER, Role.CONSULTANT)]

FIRST_RUN_COMMAND = "stormwater user add --username NAME --role director --email ADDRESS"
FIRST_RUN = f"No Director account yet: run `{FIRST_RUN_COMMAND}` on the server (it asks for the password)."


def director_exists() -> bool:
    return User.objects.filter(role=Role.DIRECTOR, is_active=True).exists()


def user_list(*, q: str = "", role: str = "", status: str = "active") -> QuerySet[User]:
    """Accounts for the Director's page, with ``two_factor`` (a confirmed authenticator app). ``role``: "" the
    staff roles, "all", or one role; ``status``: active, inactive or all."""
    qs = User.objects.annotate(two_factor=Exists(TOTPDevice.objects.filter(user=OuterRef("pk"), confirmed=True)))
    if role == "":
        qs = qs.filter(role__in=STAFF_ROLES)
    elif role != "all":
        qs = qs.filter(role=role)
    if status == "active":
        qs = qs.filter(is_active=True)
    elif status == "inactive":
        qs = qs.filter(is_active=False)
    if q:
        qs = qs.filter(Q(username__icontains=q) | Q(first_name__icontains=q) | Q(last_name__icontains=q)
                       | Q(email__icontains=q))
    return qs.order_by("role", "username")


def user_get(*, user_id: int) -> User:
    return get_object_or_404(User, pk=user_id)


def user_history(*, user: User) -> QuerySet[AuditEvent]:
    """What happened to the account: sign-ins, failures, role changes… (filed under the account), newest first."""
    return (AuditEvent.objects.filter(object_type="accounts.user", object_id=str(user.pk))
            .select_related("actor").order_by("-at", "-id"))


def sign_ins_recent(*, user: User, limit: int = 10) -> list[AuditEvent]:
    return list(user_history(user=user).filter(action__in=["auth.login", "auth.login_failed",
                                                           "auth.password_accepted"])[:limit])
