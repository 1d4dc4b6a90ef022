"""What the staff pages share when a form is posted: its text values read as dates and amounts
with errors that say what was wrong (and which input), and one service run whose refusal shows the page again
with what was typed and the error at the field (``refused``; never a 500)."""
from __future__ import annotations

from datetime import date
from decimal import Decimal, InvalidOperation

import copy

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse, QueryDict
from django.shortcuts import redirect
from django.urls import Resolver404, resolve

from stormwater.web.forms import FieldRefusal, Refusal
from stormwater.web.refill import refill


def date_value(value: str | None, default: date | None = None, *, field: str | None = None) -> date:
    """A posted YYYY-MM-DD; blank → ``default``, or an error when there is none. The error names ``field`` (the
    posted name) so that the refused form marks that input."""
    if not value:
        if default is None:
            raise FieldRefusal("A date is required.", field)
        return default
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise FieldRefusal(f"{value!r} is not a date (YYYY-MM-DD).", field) from None


MAX_AMOUNT = Decimal("1e12")  # DecimalField(max_digits=14, decimal_places=2): anything larger is a typo


def money_value(value: str | None, field: str = "amount") -> Decimal:
    """A posted amount; "$1,250.00" is read as 1250.00. NaN, Infinity and magnitudes of a trillion or
    more are refused (issue 15: "NaN" in a staff form's money field was a 500)."""
    text = (value or "").replace(",", "").replace("$", "").strip()
    try:
        d = Decimal(text)
    except InvalidOperation:
        raise FieldRefusal(f"{field}: {value!r} is not an amount.", field) from None
    if not d.is_finite():
        raise FieldRefusal(f"{field}: {value!r} is not an amount.", field)
    if abs(d) >= MAX_AMOUNT:
        raise FieldRefusal(f"{field}: {value!r} is too large an amount.", field)
    return d


def whole_value(value: str | None, field: str, *, lo: int, hi: int, default: int | None = None) -> int:
    """A posted whole number from ``lo`` to ``hi``; blank → ``default``, or an error when there is none."""
    text = (value or "").strip()
    if not text:
        if default is None:
            raise FieldRefusal(f"{field}: a whole number is required.", field)
        return default
    digits = text.lstrip("+-")
    if len(text) > 12 or not (digits.isascii() and digits.isdigit()):
        raise FieldRefusal(f"{field}: {value!r} is not a whole number from {lo} to {hi}.", field)
    n = int(text)
    if not lo <= n <= hi:
        raise FieldRefusal(f"{field}: {value!r} is not a whole number from {lo} to {hi}.", field)
    return n


MAX_ID = 2**63 - 1  # a database key (bigint); a larger number is no record (SQLite raises OverflowError past it)


def record_id(value: str | None, field: str, *, required: bool = True) -> int | None:
    """A posted record id (a whole number from 1): "abc", "¹", "-3" or a 40-digit number are refused by
    ``field`` (issue 27: a raw value as a primary key was a 500). Blank → an error, or None when not ``required``."""
    text = (value or "").strip()
    if not text and not required:
        return None
    if not text:
        raise FieldRefusal(f"{field}: a choice is required.", field)
    if len(text) > 19 or not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_ID:
        raise FieldRefusal(f"{field}: {value!r} is not one of the records offered.", field)
    return int(text)


def record_ids(values: list[str], field: str) -> list[int]:
    """Posted record ids (a multiple choice, ``request.POST.getlist(field)``), each read by ``record_id``."""
    return [record_id(v, field) for v in values if (v or "").strip()]


def choice_value(value: str | None, choices, field: str, *, default: str | None = None) -> str | None:
    """A posted choice among ``choices`` (a ``TextChoices``/``StrEnum`` or values); blank → ``default``."""
    if not value:
        return default
    allowed = [getattr(c, "value", c) for c in choices]
    if value not in allowed:
        raise FieldRefusal(f"{field}: {value!r} is not one of {', '.join(map(str, allowed))}.", field)
    return value


def page_value(value: str | None, default: int, *, hi: int = 10**6) -> int:
    """A query's page number or size (a link, not a form): anything but a whole number from 1 to ``hi`` is
    ``default`` — a pager never refuses, it shows the nearest page."""
    text = (value or "").strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 7:
        return default
    return min(max(1, int(text)), hi)


# A service saying no: a state table (``web.forms.Refusal``: ``cases.services.TransitionError`` and its kin), a
# precondition or a bad value (``ValueError``: ``FieldRefusal``, ``cases.services.DocumentError``, each app's error).
REFUSALS = (Refusal, ValueError)


def attempt(request, fn, ok: str) -> bool:
    """Run one service (``fn()``); its refusal becomes an error message on the next page, success the
    ``ok`` message. → whether it went through."""
    try:
        fn()
    except REFUSALS as e:
        messages.error(request, str(e))
        return False
    messages.success(request, ok)
    return True


def act(request, fn, ok: str, to: str):
    """Run the service; done: the ``ok`` message and go to ``to`` (a URL, the page the form is on). Refused: that
    page again with what was typed and the error at its field (``refused``)."""
    try:
        fn()
    except REFUSALS as e:
        return refused(request, e, to)
    messages.success(request, ok)
    return redirect(to)


def refused_field(request, error: Exception) -> str | None:
    """The posted input a refusal concerns: the error's ``field`` (``FieldRefusal``, ``TransitionError(field=…)``),
    else a message starting "<posted name>: …"."""
    name = getattr(error, "field", None)
    if name:
        return name
    head = str(error).partition(":")[0].strip()
    return head if head in request.POST else None


def refused(request, error: Exception, to: str) -> HttpResponse:
    """A refused hand-written form (issue 16 "Forms"): the page ``to`` rendered again, status 400, with the posted
    form filled in as it was sent, the error at its field and a summary linking to it (``web.refill``). A page
    that is not ours to render or holds no such form: the error as a message on ``to`` (what it always was)."""
    page = _page(request, to)
    if page is not None and (response := refilled(request, page[1], error, page=page[0])) is not None:
        return response
    messages.error(request, str(error))
    return redirect(to)


def refilled(request, response: HttpResponse, error: Exception, *, page: str | None = None) -> HttpResponse | None:
    """``response`` (a page holding the form posted to this request's URL; ``page`` its path, if not this one) with
    that form filled in as it was sent and ``error`` at its field, status 400; None when it holds no such form."""
    field, message = refused_field(request, error), str(error)
    if field and message.startswith(f"{field}: "):
        message = message[len(field) + 2:]  # the summary names the input by its label
    html = refill(response.content.decode(response.charset), action=request.path, page=page or request.path,
                  data=request.POST, field=field, message=message)
    if html is None:
        return None
    response.content = html.encode(response.charset)
    response.status_code = 400
    return response


def _page(request, to: str) -> tuple[str, HttpResponse] | None:
    """The page at ``to`` (a path on this site) as its view answers a GET by this user, or None."""
    url = to.partition("#")[0]
    path, _, query = url.partition("?")
    try:
        match = resolve(path)
    except Resolver404:
        return None
    get = copy.copy(request)
    get.method = "GET"
    get.path = get.path_info = path
    get.GET, get.POST = QueryDict(query), QueryDict()
    get.META = {**request.META, "REQUEST_METHOD": "GET", "QUERY_STRING": query}
    try:
        response = match.func(get, *match.args, **match.kwargs)
    except (Http404, PermissionDenied):
        return None
    if hasattr(response, "render"):
        response = response.render()
    if response.status_code != 200 or not response.get("Content-Type", "").startswith("text/html"):
        return None
    return path, response
