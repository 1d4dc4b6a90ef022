"""What every JSON endpoint shares: reading the body, typed fields with errors that name them, and
the refusal → status mapping (400 for bad input or a service's refusal, 403, 404), as JSON.

An app's API module says once which of its services' exceptions are refusals:
``_errors = api_errors(TransitionError)`` and decorates its views with ``@_errors``.
"""
from __future__ import annotations

import json
from datetime import date
from decimal import Decimal, InvalidOperation
from functools import wraps

from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse


class BadInput(ValueError):
    """The request body or a field is wrong; the message starts with the field's name."""


def json_object(request) -> dict:
    """The request body as one JSON object (an empty body is ``{}``)."""
    try:
        body = json.loads(request.body or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise BadInput("input: not valid JSON") from None
    if not isinstance(body, dict):
        raise BadInput("input: expected one JSON object")
    return body


_REQUIRED = object()


def date_field(body, name: str, default=_REQUIRED) -> date:
    """``body[name]`` as a date (YYYY-MM-DD); missing or blank → ``default``, or an error if none is given."""
    raw = body.get(name)
    if raw in (None, ""):
        if default is _REQUIRED:
            raise BadInput(f"{name}: required (YYYY-MM-DD)")
        return default
    if isinstance(raw, date):
        return raw
    try:
        return date.fromisoformat(str(raw))
    except ValueError:
        raise BadInput(f"{name}: {raw!r} is not a date (YYYY-MM-DD)") from None


def int_field(body, name: str, default=_REQUIRED) -> int:
    """``body[name]`` as a whole number; missing → ``default``, or an error if none is given
    (true/false are not numbers)."""
    raw = body.get(name)
    if raw is None or raw == "":
        if default is _REQUIRED:
            raise BadInput(f"{name}: required, a whole number")
        return default
    if isinstance(raw, bool):
        raise BadInput(f"{name}: {raw!r} is not a whole number")
    try:
        return int(str(raw))
    except ValueError:
        raise BadInput(f"{name}: {raw!r} is not a whole number") from None


def decimal_field(body, name: str, default=None, *, required: bool = False) -> Decimal | None:
    """``body[name]`` as an exact Decimal (money is sent as a string or a number); missing → ``default``."""
    raw = body.get(name)
    if raw is None:
        if required:
            raise BadInput(f"{name}: required")
        return default
    if isinstance(raw, bool):
        raise BadInput(f"{name}: a number is required")
    try:
        d = Decimal(str(raw))
    except InvalidOperation:
        raise BadInput(f"{name}: {raw!r} is not a number") from None
    if not d.is_finite():
        raise BadInput(f"{name}: {raw!r} is not a finite number")
    return d


def text_field(body, name: str, *, required: bool = False) -> str:
    """``body[name]`` as text; missing → "" (or, when ``required``, an error for missing or blank)."""
    raw = body.get(name)
    if raw is None or (required and isinstance(raw, str) and not raw.strip()):
        if required:
            raise BadInput(f"{name}: required")
        return ""
    if not isinstance(raw, str):
        raise BadInput(f"{name}: must be text")
    return raw


def only_fields(body: dict, fields) -> None:
    """Refuse fields the endpoint does not know, by name (a typo must not be silently ignored)."""
    unknown = sorted(set(body) - set(fields))
    if unknown:
        raise BadInput(f"unknown field{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}")


def api_errors(*refusals: type[BaseException]):
    """Decorator factory: bad input and ``refusals`` → 400 ``{"error": message}`` (plus the
    exception's ``json_detail()`` when it has one, e.g. the rejected rows of a lockbox file); an
    act the person may not do → 403; someone else's or no such record → 404. ValueError is always
    a refusal (the services' own errors derive from it)."""
    caught = (ValueError, *refusals)

    def deco(fn):
        @wraps(fn)
        def wrapper(request, *a, **kw):
            try:
                return fn(request, *a, **kw)
            except Http404 as e:
                return JsonResponse({"error": str(e) or "not found"}, status=404)
            except PermissionDenied as e:
                return JsonResponse({"error": str(e) or "forbidden"}, status=403)
            except caught as e:
                detail = e.json_detail() if hasattr(e, "json_detail") else {}
                return JsonResponse({"error": str(e), **detail}, status=400)
        return wrapper

    return deco
