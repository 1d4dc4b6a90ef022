"""Staff sessions end after ``staff_idle_minutes`` without a request (town configuration, default 30; issue 14).

Owners and consultants keep Django's session (14 days): they reach only their own records. Only sessions
signed in through the login page count (``SESSION_KEY`` in the session); a request authenticated another way
(the API slice's tokens) is left alone.
"""
from __future__ import annotations

import time

from django.contrib import messages
from django.contrib.auth import SESSION_KEY, logout

from stormwater.townconfig import town_config

from .signin import LAST_SEEN, auth_logout_record

MSG_IDLE = ("You were signed out after {minutes} minutes without activity (staff sessions, town configuration). "
            "Please sign in again.")
# The last-seen time is rewritten at most this often (each write saves the session row).
REFRESH_SECONDS = 30


class IdleTimeoutMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        session = getattr(request, "session", None)
        if session is not None and SESSION_KEY in session:
            self._check(request)
        return self.get_response(request)

    def _check(self, request):
        user = request.user
        if not user.is_authenticated or not user.is_staff_role:
            return
        now = time.time()
        minutes = town_config().staff_idle_minutes
        last = request.session.get(LAST_SEEN)
        if last is not None and now - last > minutes * 60:
            auth_logout_record(user=user, request=request, reason=f"idle for more than {minutes} minutes")
            logout(request)
            messages.info(request, MSG_IDLE.format(minutes=minutes))
        elif last is None or now - last >= REFRESH_SECONDS:
            request.session[LAST_SEEN] = now
