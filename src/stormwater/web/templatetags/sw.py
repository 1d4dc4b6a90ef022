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
