"""``Authorization: Bearer <token>`` on /api/ URLs: the request acts as the token's user (its role), is
exempt from CSRF (no browser, no cookie to ride on), and its use is audited. Anything else — a session
cookie, no header — goes through Django's session authentication unchanged.

A method an /api/ URL does not declare in ``endpoints.ENDPOINTS`` (TRACE, CONNECT, a DELETE on a GET endpoint) is
answered 405 here, before any view (issue 27: TRACE on a GET-only endpoint answered 200)."""
from __future__ import annotations

from django.http import JsonResponse
from django.urls import Resolver404, resolve

from .endpoints import ENDPOINTS

from .tokens import api_token_authenticate, api_token_use_record

ERR_TOKEN = "authentication required: the token is unknown or revoked"


class ApiTokenMiddleware:
    """After ``AuthenticationMiddleware``: replaces ``request.user`` for requests that carry a token."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path.startswith("/api/") and (methods := declared_methods(request.path_info)) is not None \
                and request.method not in methods:
            return JsonResponse({"error": f"method {request.method} is not allowed here (allowed: "
                                 f"{', '.join(sorted(methods))})"}, status=405, headers={"Allow": ", ".join(sorted(methods))})
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


def declared_methods(path: str) -> set[str] | None:
    """The methods ``ENDPOINTS`` declares for the API URL at ``path`` (HEAD with GET), or None when
    the path is no declared endpoint (its view then answers, a 404 most often)."""
    try:
        name = resolve(path).url_name
    except Resolver404:
        return None
    spec = ENDPOINTS.get(name)
    if spec is None:
        return None
    ops = [op for group in spec.values() for op in group] if isinstance(spec, dict) else spec
    methods = {op.method.upper() for op in ops}
    if "GET" in methods:
        methods.add("HEAD")
    return methods
