from django import template

from stormwater.portal.codes import verification_code as _code

register = template.Library()


@register.filter
def verification_code(account_number) -> str:
    """The bill's sign-up code ({{ bill.account.number|verification_code }}), see portal.codes."""
    return _code(str(account_number))
