"""What the staff pages share when a form is posted: its text values read as dates and amounts
with errors that say what was wrong, and one service run whose refusal becomes a message on the
page (never a 500)."""
from __future__ import annotations

from datetime import date
from decimal import Decimal, InvalidOperation

from django.contrib import messages
from django.shortcuts import redirect

from stormwater.cases.services import DocumentError, TransitionError


def date_value(value: str | None, default: date | None = None) -> date:
    """A posted YYYY-MM-DD; blank → ``default``, or an error when there is none."""
    if not value:
        if default is None:
            raise ValueError("A date is required.")
        return default
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a date (YYYY-MM-DD).") from None


MAX_AMOUNT = Decimal("1e12")  # DecimalField(max_digits=14, decimal_places=2): anything larger is a typo


def money_value(value: str | None, field: str = "amount") -> Decimal:
    """A posted amount; "$1,250.00" is read as 1250.00. NaN, Infinity and magnitudes of a trillion or
    more are refused (issue 15: "NaN" in a staff form's money field was a 500)."""
    text = (value or "").replace(",", "").replace("$", "").strip()
    try:
        d = Decimal(text)
    except InvalidOperation:
        raise ValueError(f"{field}: {value!r} is not an amount.") from None
    if not d.is_finite():
        raise ValueError(f"{field}: {value!r} is not an amount.")
    if abs(d) >= MAX_AMOUNT:
        raise ValueError(f"{field}: {value!r} is too large an amount.")
    return d


def whole_value(value: str | None, field: str, *, lo: int, hi: int, default: int | None = None) -> int:
    """A posted whole number from ``lo`` to ``hi``; blank → ``default``, or an error when there is none."""
    text = (value or "").strip()
    if not text:
        if default is None:
            raise ValueError(f"{field}: a whole number is required.")
        return default
    digits = text.lstrip("+-")
    if len(text) > 12 or not (digits.isascii() and digits.isdigit()):
        raise ValueError(f"{field}: {value!r} is not a whole number from {lo} to {hi}.")
    n = int(text)
    if not lo <= n <= hi:
        raise ValueError(f"{field}: {value!r} is not a whole number from {lo} to {hi}.")
    return n


REFUSALS = (TransitionError, ValueError, DocumentError)  # a service saying no: the transition table, a precondition


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
    """``attempt`` the service, then go to ``to`` (a URL) either way."""
    attempt(request, fn, ok)
    return redirect(to)
