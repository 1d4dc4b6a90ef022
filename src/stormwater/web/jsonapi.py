"""What every JSON endpoint shares: reading the body, typed fields with errors that name them, and
the refusal → status mapping (400 for bad input or a service's refusal, 403, 404), as JSON.

An app's API module says once which of its services' exceptions are refusals:
``_errors = api_errors(TransitionError)`` and decorates its views with ``@_errors``.

Malformed input never reaches Python's own limits (issue 15: 139 HTTP 500s from 20 crash sites):
``parse_json`` — the one JSON reader of the API and of ``stormwater calc`` — refuses a body over
``MAX_BODY_BYTES`` and nesting deeper than ``MAX_DEPTH`` *before* ``json.loads`` recurses, integers of
more than ``MAX_DIGITS`` digits (Python's int conversion limit is 4,300) and the non-standard
NaN/Infinity/-Infinity (and 1e999, which overflows to infinity), each by the field it was found in.
The field helpers then check type and magnitude (``MAX_WHOLE``, ``MAX_AMOUNT``) with the field named.
"""
from __future__ import annotations

import json
import math
import re
from datetime import date
from decimal import Decimal, InvalidOperation
from functools import wraps
from itertools import accumulate
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse


class BadInput(ValueError):
    """The request body or a field is wrong; the message starts with the field's name. ``detail`` (a dict)
    is added to the JSON answer (e.g. where in the body the JSON stops being JSON)."""

    def __init__(self, message: str, detail: dict | None = None):
        super().__init__(message)
        self.detail = detail or {}

    def json_detail(self) -> dict:
        return self.detail


MAX_BODY_BYTES = 1_000_000   # the largest JSON body (a stormwater plan for the review is the largest real one)
MAX_DEPTH = 32               # nesting of objects and arrays; the deepest real body (a plan) is under 10
MAX_DIGITS = 30              # digits of one integer literal; fields then apply their own bounds
MAX_WHOLE = 2**31 - 1        # a whole-number field's default bound (a database integer column)
MAX_AMOUNT = Decimal("1e12")  # an amount's default bound: DecimalField(max_digits=14, decimal_places=2)

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


class _Refused:
    """A literal ``json.loads`` must not turn into a value; replaced by an error naming its field."""

    def __init__(self, literal: str, why: str):
        self.literal, self.why = literal, why


def _constant(literal: str) -> _Refused:
    return _Refused(literal, f"{literal} is not a number (JSON has no NaN or Infinity)")


def _integer(literal: str):
    if len(literal.lstrip("-")) > MAX_DIGITS:
        return _Refused(literal, f"a number of {len(literal.lstrip('-'))} digits is out of range")
    return int(literal)


def _float(literal: str):
    f = float(literal)
    if not math.isfinite(f):
        return _Refused(literal, f"{literal[:20]} is out of range")
    return f


def _depth(text: str) -> int:
    """How deeply objects and arrays nest in ``text`` (brackets inside strings do not count)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if len(brackets) <= MAX_DEPTH:
        return len(brackets)
    return max(accumulate(1 if c in "[{" else -1 for c in brackets))


def _refused_at(value: Any, path: str = "") -> tuple[str, _Refused] | None:
    if isinstance(value, _Refused):
        return path or "input", value
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        found = _refused_at(v, f"{path}[{k}]" if isinstance(k, int) else f"{path}.{k}" if path else str(k))
        if found:
            return found
    return None


_LONG_NUMBER = re.compile(r"\d{%d,}" % (MAX_DIGITS + 1))


def check_text(text: str, *, field: str = "input") -> None:
    """For a body another parser reads (a YAML plan): refuse nesting past ``MAX_DEPTH`` (flow brackets) and
    digit runs longer than ``MAX_DIGITS`` (an integer YAML would convert) before that parser sees them."""
    if _depth(text) > MAX_DEPTH:
        raise BadInput(f"{field}: nested more than {MAX_DEPTH} levels deep")
    if _LONG_NUMBER.search(_STRING.sub("", text)):
        raise BadInput(f"{field}: a number of more than {MAX_DIGITS} digits is out of range")


def parse_json(raw: bytes | str, *, max_bytes: int = MAX_BODY_BYTES) -> Any:
    """``raw`` as a JSON value, or BadInput naming what was wrong (``input`` for the body itself, else the
    field, e.g. ``shares[0].percent``). Checks size and nesting before parsing, so that no body can make
    ``json.loads`` recurse past the interpreter's limit or convert a 5,000-digit integer."""
    if len(raw) > max_bytes:
        raise BadInput(f"input: the body is {len(raw):,} bytes; at most {max_bytes:,} are accepted")
    try:
        text = raw.decode("utf-8-sig") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise BadInput("input: not valid JSON (not UTF-8 text)") from None
    if _depth(text) > MAX_DEPTH:
        raise BadInput(f"input: nested more than {MAX_DEPTH} levels deep")
    try:
        value = json.loads(text, parse_constant=_constant, parse_int=_integer, parse_float=_float)
    except json.JSONDecodeError as e:
        raise BadInput("input: not valid JSON", {"at": f"line {e.lineno} column {e.colno}: {e.msg}"}) from None
    except (ValueError, RecursionError):  # not reachable after the checks above; never a 500 all the same
        raise BadInput("input: not valid JSON") from None
    found = _refused_at(value)
    if found:
        raise BadInput(f"{found[0]}: {found[1].why}")
    return value


def json_body(request) -> Any:
    """The request body as a JSON value (an empty body is ``None``)."""
    return parse_json(request.body) if request.body else None


def json_object(request) -> dict:
    """The request body as one JSON object (an empty body is ``{}``)."""
    body = json_body(request)
    if body is None:
        return {}
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


def whole_number(raw, name: str, *, lo: int = -MAX_WHOLE, hi: int = MAX_WHOLE) -> int:
    """``raw`` (a JSON number or text, a query or form value) as a whole number from ``lo`` to ``hi``."""
    if isinstance(raw, bool) or isinstance(raw, (list, dict)):
        raise BadInput(f"{name}: {raw!r} is not a whole number")
    text = str(raw).strip()
    if len(text.lstrip("+-")) > MAX_DIGITS:
        raise BadInput(f"{name}: must be from {lo} to {hi}")
    try:
        if not text.isascii():  # int() reads "٣" as 3; str.isdigit() passes "¹", which int() refuses (issue 27)
            raise ValueError(text)
        n = int(text)
    except ValueError:
        raise BadInput(f"{name}: {raw!r} is not a whole number") from None
    if not lo <= n <= hi:
        raise BadInput(f"{name}: must be from {lo} to {hi}")
    return n


def int_field(body, name: str, default=_REQUIRED, *, lo: int = -MAX_WHOLE, hi: int = MAX_WHOLE) -> int:
    """``body[name]`` as a whole number from ``lo`` to ``hi``; missing → ``default``, or an error if none
    is given (true/false are not numbers)."""
    raw = body.get(name)
    if raw is None or raw == "":
        if default is _REQUIRED:
            raise BadInput(f"{name}: required, a whole number")
        return default
    return whole_number(raw, name, lo=lo, hi=hi)


def amount(raw, name: str, *, limit: Decimal = MAX_AMOUNT) -> Decimal:
    """``raw`` (a JSON number or text) as an exact, finite Decimal of magnitude under ``limit``."""
    if isinstance(raw, bool) or isinstance(raw, (list, dict)):
        raise BadInput(f"{name}: a number is required")
    text = repr(raw) if isinstance(raw, float) else str(raw).strip()
    try:
        d = Decimal(text)
    except InvalidOperation:
        raise BadInput(f"{name}: {raw!r} is not a number") from None
    if not d.is_finite():
        raise BadInput(f"{name}: {raw!r} is not a finite number")
    if abs(d) >= limit:
        raise BadInput(f"{name}: must be less than {limit:,.0f} in magnitude")
    return d


def decimal_field(body, name: str, default=None, *, required: bool = False,
                  limit: Decimal = MAX_AMOUNT) -> Decimal | None:
    """``body[name]`` as an exact Decimal (money is sent as a string or a number); missing → ``default``."""
    raw = body.get(name)
    if raw is None:
        if required:
            raise BadInput(f"{name}: required")
        return default
    return amount(raw, name, limit=limit)


def text_field(body, name: str, *, required: bool = False, max_length: int | None = None) -> str:
    """``body[name]`` as text; missing → "" (or, when ``required``, an error for missing or blank).

    ``max_length``: the column's length — PostgreSQL refuses a longer value (a 500 if it got that far; SQLite
    would store it). NUL characters are refused always (PostgreSQL cannot store them; see web/nulguard.py)."""
    raw = body.get(name)
    if raw is None or (required and isinstance(raw, str) and not raw.strip()):
        if required:
            raise BadInput(f"{name}: required")
        return ""
    if not isinstance(raw, str):
        raise BadInput(f"{name}: must be text")
    if "\x00" in raw:
        raise BadInput(f"{name}: contains a NUL character (U+0000), which no field accepts")
    if max_length is not None and len(raw) > max_length:
        raise BadInput(f"{name}: at most {max_length} characters")
    return raw


def form_fields(body: dict) -> dict:
    """``body`` for code that reads a posted form's values (text, or a number or true/false here): an object or
    a list in a field is refused by its name (issue 27: a dict reached ``.strip()``, or was stored as its repr)."""
    for name, raw in body.items():
        if isinstance(raw, (dict, list)):
            raise BadInput(f"{name}: must be text, a number or true/false")
    return body


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
