"""The sign-in record (issue 14): every sign-in, failed sign-in, sign-out, password-reset request and the
state between a right password and the second factor. One audit row each (stormwater.audit), with the
client address; never a password or a code. A failed sign-in has no actor (nobody is signed in): the
attempted username is in ``data`` and, when it names an account, the row is filed under that account.
"""
from __future__ import annotations

import time

from django.db import transaction

from stormwater.audit.services import audit_record
from stormwater.portal.throttle import client_ip

from .models import User

PENDING = "accounts.pending_sign_in"   # session key: a right password, waiting for the second factor
PENDING_SECONDS = 10 * 60
PENDING_TRIES = 5
LAST_SEEN = "accounts.last_seen"      # session key: epoch seconds of the last request (idle timeout)


def _where(request) -> dict:
    return {"ip": client_ip(request), "user_agent": request.META.get("HTTP_USER_AGENT", "")[:200]}


@transaction.atomic
def auth_login_record(*, user, request, method: str) -> None:
    audit_record(actor=user, action="auth.login", obj=user, data={"username": user.username, "method": method,
                                                                  **_where(request)})


@transaction.atomic
def auth_login_failure_record(*, username: str, request, stage: str, reason: str) -> None:
    """``stage``: "password" or "two-factor"; ``reason`` in plain words (wrong password, paused, …)."""
    username = (username or "")[:150]
    user = User.objects.filter(username=username).only("pk").first()
    audit_record(actor=None, action="auth.login_failed", object_type="accounts.user",
                 object_id=str(user.pk) if user else "",
                 data={"username": username, "stage": stage, "reason": reason, **_where(request)})


@transaction.atomic
def auth_password_accepted_record(*, user, request, next_step: str) -> None:
    """The password was right and the second factor is asked: recorded now, because a right password that is
    never followed by a code may mean the password is known to someone else."""
    audit_record(actor=None, action="auth.password_accepted", obj=user,
                 data={"username": user.username, "next_step": next_step, **_where(request)})


@transaction.atomic
def auth_logout_record(*, user, request, reason: str) -> None:
    audit_record(actor=user, action="auth.logout", obj=user, data={"username": user.username, "reason": reason,
                                                                   **_where(request)})


@transaction.atomic
def auth_password_reset_request_record(*, email: str, request, accounts: list, refused: str = "") -> None:
    """A reset link was asked for ``email``; ``accounts`` the accounts it was mailed to (none: nothing sent,
    and the person is told the same as when it was, so addresses cannot be probed)."""
    audit_record(actor=None, action="auth.password_reset_request", object_type="accounts.user",
                 object_id=str(accounts[0].pk) if len(accounts) == 1 else "",
                 data={"email": (email or "")[:254], "sent_to_accounts": [u.username for u in accounts],
                       **({"refused": refused} if refused else {}), **_where(request)})


def pending_start(request, user, *, next_url: str) -> None:
    """Remember, in a fresh session, who gave the right password; nobody is signed in yet."""
    request.session.cycle_key()
    request.session[PENDING] = {"user": user.pk, "backend": getattr(user, "backend", ""), "since": time.time(),
                                "hash": user.get_session_auth_hash(), "next": next_url, "failures": 0}


def pending_get(request):
    """(user, state) of a pending sign-in still valid (ten minutes, the same password), else None."""
    state = request.session.get(PENDING)
    if not state or time.time() - state.get("since", 0) > PENDING_SECONDS:
        return None
    user = User.objects.filter(pk=state["user"], is_active=True).first()
    if user is None or user.get_session_auth_hash() != state["hash"]:
        return None
    return user, state


def pending_failure(request) -> int:
    state = request.session[PENDING]
    state["failures"] = state.get("failures", 0) + 1
    request.session[PENDING] = state
    return state["failures"]


def pending_clear(request) -> None:
    request.session.pop(PENDING, None)
