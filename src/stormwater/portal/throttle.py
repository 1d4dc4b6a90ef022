"""A small cache-based limiter: N failures per key per window, then refuse until the window passes.

Scopes (each with its own limit, all counted over LOGIN_THROTTLE_WINDOW_SECONDS):
- ``login``: one username from one client IP (LOGIN_THROTTLE_FAILURES, 5) — guessing one person's password;
- ``login-ip``: any usernames from one client IP (LOGIN_THROTTLE_IP_FAILURES, 20) — one password sprayed over
  many usernames; a success does not clear it (else one valid account would reset the count);
- ``signup``: one account number from one IP (the bill's verification code is the secret there);
- ``password-reset``: reset requests from one IP (PASSWORD_RESET_THROTTLE_REQUESTS, 5) — no mail bombing.
There is deliberately no limit per username over all addresses: anyone could then lock the Director out by
failing from a few machines; staff roles have a second factor instead (accounts.twofactor).

The counts live in Django's database cache (settings.CACHES, issue 27): one table that every server worker and
process of the installation shares. Each count is stored with the end of its window — the window opens at the
first failure and does not move with later ones — because the database cache's ``incr`` is a read and a ``set``
that would restart the entry's expiry at every failure.
"""
from __future__ import annotations

import hashlib
import math
import time

from django.conf import settings
from django.core.cache import cache

_LIMIT_SETTING = {"login-ip": ("LOGIN_THROTTLE_IP_FAILURES", 20),
                  "password-reset": ("PASSWORD_RESET_THROTTLE_REQUESTS", 5)}


def _limits(scope: str = "login") -> tuple[int, int]:
    name, default = _LIMIT_SETTING.get(scope, ("LOGIN_THROTTLE_FAILURES", 5))
    return (int(getattr(settings, name, default)),
            int(getattr(settings, "LOGIN_THROTTLE_WINDOW_SECONDS", 15 * 60)))


def client_ip(request) -> str:
    # REMOTE_ADDR only: X-Forwarded-For is set by the client unless a trusted proxy rewrites it.
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def _key(scope: str, ident: str, ip: str) -> str:
    h = hashlib.sha256(f"{scope}\0{ident.strip().lower()}\0{ip}".encode()).hexdigest()
    return f"throttle:{scope}:{h}"


def _count(key: str, now: float) -> tuple[int, float]:
    """(failures, the window's end as a Unix time) of ``key``; (0, 0) when none or the window has passed."""
    value = cache.get(key)
    if not (isinstance(value, (tuple, list)) and len(value) == 2) or value[1] <= now:
        return 0, 0.0
    return int(value[0]), float(value[1])


def throttled(scope: str, ident: str, ip: str) -> bool:
    failures, _ = _limits(scope)
    return _count(_key(scope, ident, ip), time.time())[0] >= failures


def failure_note(scope: str, ident: str, ip: str) -> None:
    _, window = _limits(scope)
    key, now = _key(scope, ident, ip), time.time()
    count, ends = _count(key, now)
    if not count:
        ends = now + window
    cache.set(key, (count + 1, ends), timeout=max(1, math.ceil(ends - now)))


def failures_clear(scope: str, ident: str, ip: str) -> None:
    cache.delete(_key(scope, ident, ip))


def window_minutes() -> int:
    return max(1, _limits()[1] // 60)
