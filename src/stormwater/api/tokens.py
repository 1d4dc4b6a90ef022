"""API tokens (issue 15): issued by the Director with a name and a role, stored hashed, shown once, revoked
by the Director, and every use recorded in the audit log (one insert per request, nothing updated).

A token's secret is 32 random bytes (``secrets.token_urlsafe``), so a plain SHA-256 of it is a safe
lookup key (no password-style stretching is needed for a secret nobody chose); the row keeps only the hash
and the first characters (``prefix``) for telling tokens apart in lists.
"""
from __future__ import annotations

import hashlib
import secrets

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from stormwater.accounts.roles import Role
from stormwater.audit.models import AuditEvent
from stormwater.audit.services import actor_or_none, audit_record

from .models import ApiToken

SECRET_PREFIX = "swt_"   # recognisable in logs and secret scanners
USE_ACTION = "api_token.use"

ERR_NAME = "name: a token needs a name (what system uses it), at most 80 characters."
ERR_NAME_TAKEN = "name: a token named {name!r} exists already (names stay unique, revoked or not)."
ERR_ROLE = "role: {role!r} is not one of " + ", ".join(Role.values) + "."
ERR_REVOKED = "The token {name!r} was revoked on {on:%Y-%m-%d}."


class TokenError(ValueError):
    """A token act refused; the message says why (and names the field where there is one)."""


def key_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


@transaction.atomic
def api_token_issue(*, name: str, role: str, acting_user) -> tuple[ApiToken, str]:
    """A new token → (the row, the secret). The secret is returned this once and never stored."""
    name = (name or "").strip()
    if not name or len(name) > 80:
        raise TokenError(ERR_NAME)
    if role not in Role.values:
        raise TokenError(ERR_ROLE.format(role=role))
    if ApiToken.objects.filter(name=name).exists():
        raise TokenError(ERR_NAME_TAKEN.format(name=name))
    User = get_user_model()
    base = f"api-token.{slugify(name)[:100] or 'token'}"
    username, n = base, 1
    while User.objects.filter(username=username).exists():
        n += 1
        username = f"{base}-{n}"
    # The token's own user: its role, no password (it cannot sign in on the login page), its name shown as
    # the actor of everything it does.
    user = User(username=username, first_name=name[:150], role=role)
    user.set_unusable_password()
    user.save()
    secret = SECRET_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(name=name, role=role, user=user, key_hash=key_hash(secret),
                                    prefix=secret[:10], created_by=actor_or_none(acting_user))
    audit_record(actor=acting_user, action="api_token.issue", obj=token, why=f"API token {name!r} issued",
                 data={"name": name, "role": role, "prefix": token.prefix, "user": username})
    return token, secret


@transaction.atomic
def api_token_revoke(*, token: ApiToken, acting_user, why: str = "") -> ApiToken:
    """Revoke: the token stops working at once (its user is deactivated too)."""
    token = ApiToken.objects.select_for_update().select_related("user").get(pk=token.pk)
    if token.revoked_at is not None:
        raise TokenError(ERR_REVOKED.format(name=token.name, on=timezone.localtime(token.revoked_at)))
    token.revoked_at = timezone.now()
    token.revoked_by = actor_or_none(acting_user)
    token.save(update_fields=["revoked_at", "revoked_by"])
    token.user.is_active = False
    token.user.save(update_fields=["is_active"])
    audit_record(actor=acting_user, action="api_token.revoke", obj=token, why=why or f"API token {token.name!r} revoked",
                 data={"name": token.name, "role": token.role, "prefix": token.prefix})
    return token


def api_tokens() -> list[ApiToken]:
    return list(ApiToken.objects.select_related("user", "created_by", "revoked_by"))


def api_token_get(*, name: str) -> ApiToken:
    token = ApiToken.objects.filter(name=name).first()
    if token is None:
        raise TokenError(f"name: no token named {name!r}")
    return token


def api_token_authenticate(secret: str) -> ApiToken | None:
    """The active token whose secret this is, or None (unknown, revoked, or its user deactivated)."""
    if not secret.startswith(SECRET_PREFIX) or len(secret) > 200:
        return None
    token = ApiToken.objects.select_related("user").filter(key_hash=key_hash(secret)).first()
    if token is None or token.revoked_at is not None or not token.user.is_active:
        return None
    return token


def api_token_use_record(*, token: ApiToken, method: str, path: str, status: int) -> None:
    """One audit row per request made with a token: a single INSERT (no update of the token row, so a busy
    integration adds no write contention beyond its own log line)."""
    AuditEvent.objects.create(actor=token.user, action=USE_ACTION, object_type="api.apitoken",
                              object_id=str(token.pk), data={"method": method, "path": path[:300], "status": status})
