"""One confirmation before every bulk or irreversible act (issue 25 item 7: approving 487 bills, serving 76 demands
or voiding a run were each one click).

The act's form posts as before. The view first asks ``confirmation_needed(request)``: the first POST carries no
``confirmed`` token, so the view answers with ``confirm_page`` — what will happen, how many, how much money — and
changes nothing. That page posts the same fields again with the token, which is a signature of the act's path and
of exactly those fields: a confirmation is for what was shown (another set of ticked accounts, another reason, is
asked again). The JSON API and the command line are explicit already and do not ask.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from django.shortcuts import render
from django.utils.crypto import constant_time_compare, salted_hmac

CONFIRM_FIELD = "confirmed"
_NOT_SIGNED = {"csrfmiddlewaretoken", CONFIRM_FIELD}


@dataclass(frozen=True)
class Confirmation:
    """What the confirmation page says. ``lines``: (label, value) rows under the title (e.g. ("Bills", "487"),
    ("Total billed", "$25,889.92")); ``what``: sentences saying what the act does and whether it can be undone."""

    title: str
    button: str
    back_url: str
    what: list[str] = field(default_factory=list)
    lines: list[tuple[str, str]] = field(default_factory=list)
    count: int | None = None
    amount: Decimal | None = None
    danger: bool = False


def _items(request) -> list[tuple[str, str]]:
    return sorted((k, v) for k, vals in request.POST.lists() for v in vals if k not in _NOT_SIGNED)


def confirm_token(request) -> str:
    """The signature of this act (its path) with these exact fields, for this session's user."""
    user = getattr(request, "user", None)
    msg = repr((request.path, getattr(user, "pk", None), _items(request)))
    return salted_hmac("stormwater.web.confirm", msg).hexdigest()[:32]


def confirmation_needed(request) -> bool:
    """True unless the POST carries the token of this very act (then the view acts)."""
    got = request.POST.get(CONFIRM_FIELD, "")
    return not (got and constant_time_compare(got, confirm_token(request)))


def confirm_page(request, confirmation: Confirmation):
    """The page that asks: the same fields as hidden inputs, the token, a button that acts and a way back."""
    return render(request, "web/confirm.html", {"c": confirmation, "fields": _items(request),
                                                "token": confirm_token(request), "token_name": CONFIRM_FIELD})
