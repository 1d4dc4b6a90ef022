"""What the collections writers share (``services``: one payment, demand or commitment at a time; ``lockbox``: a
file's payments in rounds) and the reads know too: the refusal and its messages, the amount check, the commitment
delay. Below both, so neither imports the other for them; ``services`` names them all."""
from __future__ import annotations

from decimal import Decimal

from stormwater.rules.money import fmt_display

ERR_AMOUNT = "amount: must be greater than zero"
ERR_FUTURE = "received_on: {day} is in the future"
ERR_CLOSED = "{field}: {day} is in a closed period (the books are closed through {through})"
# Issue 26: with no books closed, a payment dated 1999 posted. The default closed-books rule: nothing is received
# before the oldest fiscal year billed (a Massachusetts fiscal year runs July 1 – June 30, MGL c.44 §56).
ERR_BEFORE_BOOKS = ("{field}: {day} is before the books open ({start}, {why}); a payment cannot be received before "
                    "there was anything to pay")
ERR_UNKNOWN_ACCOUNT = "account: no account {number!r}"

# Ch. 295 Art. IV billing ¶D: commitment once "the amount due remains unpaid 14 days after mailing".
DEMAND_TO_COMMITMENT_DAYS = 14


class CollectionError(ValueError):
    pass


# The largest amount the ledger's money columns hold (utility.models.MONEY: 14 digits, 2 after the point).
# An amount past it was once stored by SQLite (which does not enforce digits) and broke every page that read it.
MONEY_COLUMN_MAX = Decimal("999999999999.99")
ERR_TOO_LARGE = "{field}: {value} is too large (the ledger holds at most $999,999,999,999.99)"
ERR_IMPLAUSIBLE = ("{field}: ${value} is above the plausibility limit of ${limit} (town configuration "
                   "payment_plausible_max); check the amount")


def payment_amount_check(amount: Decimal, field: str = "amount") -> None:
    """A payment's amount is greater than zero, fits the ledger's columns and is plausible (the town
    configuration's ``payment_plausible_max``; issue 17). Raises CollectionError naming the field."""
    from stormwater.townconfig import town_config

    if amount <= 0:
        raise CollectionError(ERR_AMOUNT)
    if amount > MONEY_COLUMN_MAX:
        raise CollectionError(ERR_TOO_LARGE.format(field=field, value=amount))
    limit = town_config().payment_plausible_max
    if amount > limit:
        raise CollectionError(ERR_IMPLAUSIBLE.format(field=field, value=fmt_display(amount),
                                                     limit=fmt_display(limit)))
