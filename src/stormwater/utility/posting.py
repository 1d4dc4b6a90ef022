"""Posting to the ledger by its allocation rule (Ch. 295 Art. IV billing and collection; DESIGN.md): an amount
goes oldest installment first, demand charges → interest → principal, and an account's unapplied credit is applied
to what it owes. Collections (``receivables.services``: payments, credits, abatements) and the bill run (a credit
balance applied to the new bills) post through these, so the bill run needs nothing from collections;
``receivables.services`` names them too (``_lock``, ``_allocate``, ``credit_apply``, ``ALLOCATION_ORDER``)."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.db import transaction

from stormwater.audit.services import actor_or_none
from stormwater.rules.money import ZERO

from .ledger import account_position, unapplied_credit
from .models import Account, Component, EntryKind, LedgerEntry

# Payment allocation order within an installment (DESIGN.md): demand charges, interest, principal.
ALLOCATION_ORDER = (Component.DEMAND, Component.INTEREST, Component.PRINCIPAL)


def account_lock(account: Account) -> Account:
    """The account locked for this transaction (every writer of its ledger takes it first)."""
    # NO KEY UPDATE (PostgreSQL): serializes the writers of one account, and does not wait for the foreign-key
    # checks (FOR KEY SHARE) of a bill run's approval posting charges to thousands of accounts at once.
    return Account.objects.select_for_update(no_key=True).get(pk=account.pk)


def allocate(account: Account, amount: Decimal, on: date, *, kind: str, user, payment=None,
             memo: str = "", components=ALLOCATION_ORDER) -> Decimal:
    """Apply ``amount`` oldest installment first, demand → interest → principal; returns what is left. ``payment``
    (a ``receivables.Payment``) is the payment the entries belong to, if any."""
    left = amount
    for d in account_position(account, as_of=on).dues:
        if left <= 0:
            break
        for comp in components:
            owed = d.buckets[comp]
            take = min(left, owed)
            if take > 0:
                LedgerEntry.objects.create(account=account, kind=kind, component=comp, amount=-take, effective_on=on,
                                           bill=d.installment.bill, installment=d.installment, payment=payment,
                                           created_by=actor_or_none(user), memo=memo)
                left -= take
    return left


@transaction.atomic
def credit_apply(*, account: Account, on: date, acting_user) -> Decimal:
    """Apply an account's unapplied credit to what it owes (e.g. after a new bill is issued)."""
    account = account_lock(account)
    credit = unapplied_credit(account, as_of=on)
    if credit <= 0:
        return ZERO
    left = allocate(account, credit, on, kind=EntryKind.CREDIT, user=acting_user, memo="Credit balance applied")
    used = credit - left
    if used > 0:
        LedgerEntry.objects.create(account=account, kind=EntryKind.CREDIT, component=Component.UNAPPLIED,
                                   amount=used, effective_on=on, created_by=actor_or_none(acting_user),
                                   memo="Credit balance applied")
    return used
