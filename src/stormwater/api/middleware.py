"""``Authorization: Bearer <token>`` on /api/ URLs: the request acts as the token's user (its role), is
exempt from CSRF (no browser, no cookie to ride on), and its use is audited. Anything else — a session
cookie, no header — goes through Django's session authentication unchanged."""
from __future__ import annotations

from django.http import JsonResponse

from .tokens import api_token_authenticate, api_token_use_record

ERR_TOKEN = "authentication required: the token is unknown or revoked"


class ApiTokenMiddleware:
    """After ``AuthenticationMiddleware``: replaces ``request.user`` for requests that carry a token."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header or not request.path.startswith("/api/"):
            return self.get_response(request)
        scheme, _, secret = header.partition(" ")
        if scheme.lower() != "bearer":
            return self.get_response(request)
        token = api_token_authenticate(secret.strip())
        if token is None:
            return JsonResponse({"error": ERR_TOKEN}, status=401,
                                headers={"WWW-Authenticate": 'Bearer realm="api", error="invalid_token"'})
        request.user = token.user
        request.api_token = token
        request._dont_enforce_csrf_checks = True  # read by CsrfViewMiddleware: token requests only
        response = self.get_response(request)
        api_token_use_record(token=token, method=request.method, path=request.get_full_path(),
                             status=response.status_code)
        return response
