from django.db.models import Q
from django.http import Http404

from stormwater.accounts.roles import Perm
from stormwater.utility.models import Account


def accounts_for_user(*, user):
    qs = Account.objects.select_related("parcel", "unit", "parcel__owner")
    if user.can(Perm.BILLING_VIEW_ALL):
        return qs
    return qs.filter(Q(unit__isnull=True, parcel__owner__user=user) | Q(unit__owner__user=user))


def account_get_for_user(*, user, number: str) -> Account:
    try:
        return accounts_for_user(user=user).get(number=number)
    except Account.DoesNotExist:
        raise Http404("No such account.") from None
