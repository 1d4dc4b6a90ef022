from decimal import Decimal

from django import template

from stormwater.rules.money import fmt_display, fmt_ratio

register = template.Library()


@register.filter
def ratio(value):
    """A coefficient or percent without trailing zeros: 1.000 → 1.0, 0.900 → 0.9."""
    return fmt_ratio(Decimal(str(value))) if value not in (None, "") else ""


@register.filter
def money(value):
    """$ amounts with thousands separators: 2828.11 → 2,828.11."""
    return fmt_display(Decimal(str(value))) if value not in (None, "") else ""


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
