"""A small cache-based limiter: N failures per key per window, then refuse until the window passes.

Used on the login view (key: username + client IP) and on sign-up (key: account number + IP, because the
bill's verification code is the secret there). The default cache is per process (LocMemCache); a production
deployment with several workers should point CACHES at a shared cache so the count is shared too.
"""
from __future__ import annotations

import hashlib

from django.conf import settings
from django.core.cache import cache


def _limits() -> tuple[int, int]:
    return (int(getattr(settings, "LOGIN_THROTTLE_FAILURES", 5)),
            int(getattr(settings, "LOGIN_THROTTLE_WINDOW_SECONDS", 15 * 60)))


def client_ip(request) -> str:
    # REMOTE_ADDR only: X-Forwarded-For is set by the client unless a trusted proxy rewrites it.
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def _key(scope: str, ident: str, ip: str) -> str:
    h = hashlib.sha256(f"{scope}\0{ident.strip().lower()}\0{ip}".encode()).hexdigest()
    return f"throttle:{scope}:{h}"


def throttled(scope: str, ident: str, ip: str) -> bool:
    failures, _ = _limits()
    return int(cache.get(_key(scope, ident, ip), 0)) >= failures


def failure_note(scope: str, ident: str, ip: str) -> None:
    _, window = _limits()
    key = _key(scope, ident, ip)
    if not cache.add(key, 1, timeout=window):
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.add(key, 1, timeout=window)


def failures_clear(scope: str, ident: str, ip: str) -> None:
    cache.delete(_key(scope, ident, ip))


def window_minutes() -> int:
    return max(1, _limits()[1] // 60)
