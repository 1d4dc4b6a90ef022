from django.http import Http404

from stormwater.accounts.roles import Perm
from stormwater.utility.models import Account


def accounts_for_user(*, user):
    qs = Account.objects.select_related("parcel", "unit", "parcel__owner")
    if user.can(Perm.BILLING_VIEW_ALL):
        return qs
    # A whole parcel's account through its record owner, a unit's through the unit's owner. A union of the
    # two index paths (not an OR across joins, which read the whole table: issue 15).
    whole = Account.objects.filter(unit__isnull=True, parcel__owner__user=user).order_by().values("pk")
    units = Account.objects.filter(unit__owner__user=user).order_by().values("pk")
    return qs.filter(pk__in=whole.union(units))


def account_get_for_user(*, user, number: str) -> Account:
    try:
        return accounts_for_user(user=user).get(number=number)
    except Account.DoesNotExist:
        raise Http404("No such account.") from None
