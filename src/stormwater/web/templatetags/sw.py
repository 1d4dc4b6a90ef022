"""The template filters every page uses for what people read (issue 16, STYLE.md habit 14).

- ``usd``: THE money filter: ``{{ bill.amount|usd }}`` → "$1,234.56" ("-$12.50" below zero). Never write a
  "$" in front of it. ``money`` is the bare number ("1,234.56") for the few places that print their own sign
  (e.g. "+$12.50" differences) and for templates written before ``usd``.
- ``day``: THE date filter: ``{{ d|day }}`` → "Dec 2, 2026"; ``{{ d|day:"weekday" }}`` → "Wed, Dec 2, 2026"
  (deadlines); a datetime is shown in the town's time zone. ``daytime`` → "Dec 2, 2026, 3:05 PM".
  A bare ``{{ d }}`` prints the same form (FORMAT_MODULE_PATH, stormwater/formats/en/formats.py).
- Inputs keep ISO values (``value="{{ d|date:'Y-m-d' }}"``): those are read by the browser, not by people.
"""
import re
from datetime import date, datetime
from decimal import Decimal, InvalidOperation

from django import template
from django.utils import timezone
from django.utils.dateformat import format as date_format

from stormwater.rules.calendar import fmt_day, fmt_moment
from stormwater.rules.money import fmt_display, fmt_ratio, fmt_usd

register = template.Library()

DAY = "M j, Y"                  # Dec 2, 2026 (stormwater/formats/en/formats.py DATE_FORMAT)
WEEKDAY = "D, M j, Y"           # Wed, Dec 2, 2026
DAYTIME = "M j, Y, g:i A"       # Dec 2, 2026, 3:05 PM
TIME = "g:i A"                  # 3:05 PM


def _decimal(value) -> Decimal | None:
    if value in (None, ""):
        return None
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None


@register.filter
def ratio(value):
    """A coefficient or percent without trailing zeros: 1.000 → 1.0, 0.900 → 0.9."""
    return fmt_ratio(Decimal(str(value))) if value not in (None, "") else ""


@register.filter
def money(value):
    """The bare amount with thousands separators: 2828.11 → 2,828.11 (prefer ``usd``)."""
    return fmt_display(Decimal(str(value))) if value not in (None, "") else ""


@register.filter
def balance(value):
    """An account's balance for people: what is owed as ``usd``; below zero it is the owner's credit, said so —
    "Credit balance $26.58", never "-$26.58" (issue 17)."""
    d = _decimal(value)
    if d is None:
        return ""
    return f"Credit balance {fmt_usd(-d)}" if d < 0 else fmt_usd(d)


@register.filter
def usd(value):
    """Money for people: 2828.11 → $2,828.11; -12.5 → -$12.50; empty stays empty."""
    d = _decimal(value)
    return "" if d is None else fmt_usd(d)


def _local(value):
    if isinstance(value, datetime) and timezone.is_aware(value):
        return timezone.localtime(value)
    return value


@register.filter(expects_localtime=True)
def day(value, form: str = ""):
    """A date (or a datetime's date) for people: "Dec 2, 2026"; form "weekday": "Wed, Dec 2, 2026";
    "time": "3:05 PM" (a datetime's time only). Anything else is returned as it is."""
    if not isinstance(value, (date, datetime)):
        return value if value not in (None,) else ""
    value = _local(value)
    if form == "time":
        return date_format(value, TIME) if isinstance(value, datetime) else ""
    return date_format(value, WEEKDAY if form == "weekday" else DAY)


@register.filter(expects_localtime=True)
def daytime(value, form: str = ""):
    """A moment for people: "Dec 2, 2026, 3:05 PM" (the town's time zone); form "weekday":
    "Wed, Dec 2, 2026, 3:05 PM"; "zone" (with or without "weekday") adds the zone's abbreviation, "… 3:05 PM EST",
    where an hour's meaning turns on daylight-saving time (a storm inspection's 24 elapsed hours, CGP 2022 Part 4.2).
    A plain date prints as ``day``."""
    if not isinstance(value, (date, datetime)):
        return value if value is not None else ""
    value = _local(value)
    words = form.split()
    weekday = "D, " if "weekday" in words else ""
    out = date_format(value, weekday + (DAYTIME if isinstance(value, datetime) else DAY))
    if "zone" in words and isinstance(value, datetime) and value.tzname():
        out += " " + value.tzname()
    return out


_ISO_MOMENT = re.compile(r"(?<![\w/-])(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?:[+-]\d{2}:?\d{2}|Z)?)?(?![\w-])")
_BARE_DOLLARS = re.compile(r"\$(-?)(\d{4,})\.(\d{2})(?!\d)")


def _people_moment(m: re.Match) -> str:
    try:
        d = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return m.group(0)
    if m.group(4) is None:
        return fmt_day(d)
    return fmt_moment(d, int(m.group(4)), int(m.group(5)))


@register.filter
def people(text):
    """Text made by the services for everyone (API, CLI, web) speaks ISO dates ("due 2026-12-05"); on a page it is
    shown in the one form for people: "due Dec 5, 2026", "2026-12-02 09:00" → "Dec 2, 2026, 9:00 AM", and a
    "$64000.00" gets its thousands separators. Used on messages, form errors, timelines and document titles
    (stored text is never rewritten: only its display)."""
    if text in (None, ""):
        return "" if text is None else text
    s = _ISO_MOMENT.sub(_people_moment, str(text))
    return _BARE_DOLLARS.sub(lambda m: f"{m.group(1)}${int(m.group(2)):,}.{m.group(3)}", s)


# ---- references: every record a page names is a link to its page (issue 16 "Record pages") ------------------
# The page of each kind of case (cases.Case.kind → URL name); a waiver and a failure-to-maintain notice are shown
# on their parent's page (a permit; a stewardship site) at the section named.
CASE_PAGES = {"permit": ("permit_detail", ""), "construction": ("construction_detail", ""),
              "stewardship": ("site_detail", ""), "credit": ("relief_detail", ""), "abatement": ("relief_detail", ""),
              "appeal": ("relief_detail", ""), "lien_abatement": ("relief_detail", ""),
              "waiver": ("permit_detail", "#waivers"), "maintenance": ("site_detail", "#notices")}


def case_url(case) -> str:
    """The page of a case (its parent's section for waivers and maintenance notices); "" if none."""
    from django.urls import NoReverseMatch, reverse

    name, anchor = CASE_PAGES.get(case.kind, ("", ""))
    if not name:
        return ""
    number = case.parent.number if anchor and case.parent_id else case.number
    try:
        return reverse(name, args=[number]) + anchor
    except NoReverseMatch:
        return ""


@register.simple_tag
def case_ref(case, label: str = ""):
    """``{% case_ref case %}`` → a link to the case's page, named by its number (or ``label``)."""
    from django.utils.html import format_html

    if case is None:
        return ""
    url = case_url(case)
    text = label or case.number
    return format_html('<a class="case-ref" href="{}">{}</a>', url, text) if url else text


def _may_open_parcel(user, parcel) -> bool:
    from stormwater.roles import Perm

    if user is None or not user.is_authenticated:
        return False
    if user.can(Perm.PARCEL_VIEW_ALL):
        return True
    owner = getattr(parcel, "owner", None)
    return owner is not None and owner.user_id == user.pk


@register.simple_tag(takes_context=True)
def parcel_ref(context, parcel, with_address: bool = True):
    """``{% parcel_ref parcel %}`` → "01-02-3 · 12 Main St" linked to the parcel's page when the person may open
    it (staff; an owner their own parcel); the public page of the parcel otherwise."""
    from django.urls import reverse
    from django.utils.html import format_html

    if parcel is None:
        return ""
    text = f"{parcel.parcel_id} · {parcel.address}" if with_address and parcel.address else parcel.parcel_id
    user = context.get("user")
    name = "parcel_detail" if _may_open_parcel(user, parcel) else "portal_parcel"
    return format_html('<a href="{}">{}</a>', reverse(name, args=[parcel.parcel_id]), text)


@register.simple_tag
def bill_ref(bill, label: str = ""):
    from django.urls import reverse
    from django.utils.html import format_html

    if bill is None:
        return ""
    return format_html('<a href="{}">{}</a>', reverse("bill_detail", args=[bill.number]), label or bill.number)


@register.simple_tag
def account_ref(account, label: str = ""):
    from django.urls import reverse
    from django.utils.html import format_html

    if account is None:
        return ""
    return format_html('<a href="{}">{}</a>', reverse("account_statement", args=[account.number]),
                       label or account.number)


@register.filter
def can(user, perm: str) -> bool:
    """``{% if user|can:"collect" %}``: the role table (stormwater.roles) in a template, e.g. to link a reference
    only for people who may open its page."""
    return bool(user is not None and getattr(user, "is_authenticated", False) and user.can(perm))


@register.filter
def abs_money(value):
    """The size of an amount, for a difference shown with its own sign: -12.5 → 12.50."""
    return fmt_display(abs(Decimal(str(value)))) if value not in (None, "") else ""


@register.simple_tag
def submit_token():
    """The hidden one-time token of a form of an irreversible act (web/once.py: the server runs it once)."""
    from django.utils.html import format_html

    from stormwater.web.once import FIELD, new_token

    return format_html('<input type="hidden" name="{}" value="{}">', FIELD, new_token())
