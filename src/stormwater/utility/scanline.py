"""The scanline on the bill's tear-off stub (issue 17): the account and the amount due, with a check digit,
printed in a monospaced line that a receipting screen reads back (typed, or scanned by a keyboard-wedge
reader) to find the account and the amount without keying them.

Format: ``<account number> <amount in cents, 10 digits> <check digit>``, fields separated by one space,
e.g. ``SW-02-01-1 0000141406 4``. The check digit is the Luhn (mod 10) digit computed over the account's
letters and digits (letters counted as two digits, A = 10 … Z = 35, as ISIN check digits are; other
characters such as ``-`` are not counted) followed by the amount's ten digits, so that one mistyped
digit of either field, or two adjacent digits swapped, is caught.

Interface (for the receipting screen, collector-b):
    scanline_format(account_number: str, amount: Decimal) -> str
    scanline_parse(text: str) -> Scanline(account: str, amount: Decimal)   # ScanlineError (a ValueError) if bad
    looks_like_scanline(text: str) -> bool   # cheap test before trying, for a search box that takes anything
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from stormwater.rules.money import CENT, round_cents

AMOUNT_DIGITS = 10  # $99,999,999.99 at most: far above any stormwater bill
_LINE = re.compile(r"^(?P<account>\S(?:.*\S)?)\s+(?P<amount>\d{%d})\s+(?P<check>\d)$" % AMOUNT_DIGITS)


# Said as such at the window (issue 25): a stub whose digits do not agree is not "an account that does not exist".
ERR_CHECK_DIGIT = ("scanline: check digit does not match: mistyped or misread stub; scan it again or key the account "
                   "and amount")


class ScanlineError(ValueError):
    """A scanline that cannot be read; the message starts with ``scanline:`` and says why."""


@dataclass(frozen=True)
class Scanline:
    account: str
    amount: Decimal


def _digits(text: str) -> str:
    """Letters and digits as a digit string (A = 10 … Z = 35); other characters are not counted."""
    return "".join(str(int(c, 36)) for c in text.upper() if c.isascii() and c.isalnum())


def luhn_check_digit(digits: str) -> int:
    """The Luhn digit that makes ``digits`` + it valid (doubling every second digit from the right of the
    result, i.e. from the rightmost digit of ``digits``)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return (10 - total % 10) % 10


def _check(account: str, cents: str) -> int:
    return luhn_check_digit(_digits(account) + cents)


def scanline_format(account_number: str, amount: Decimal) -> str:
    """The scanline for ``account_number`` and ``amount`` (dollars, rounded to the cent; negative = 0)."""
    account = account_number.strip()
    if not account or not _digits(account):
        raise ScanlineError("scanline: the account number has no letters or digits")
    cents = int(max(round_cents(Decimal(amount)), Decimal(0)) / CENT)
    if cents >= 10 ** AMOUNT_DIGITS:
        raise ScanlineError(f"scanline: {amount} does not fit in {AMOUNT_DIGITS} digits of cents")
    field = f"{cents:0{AMOUNT_DIGITS}d}"
    return f"{account} {field} {_check(account, field)}"


def looks_like_scanline(text: str) -> bool:
    return bool(_LINE.match((text or "").strip()))


def scanline_parse(text: str) -> Scanline:
    """The account and amount of a scanline; ScanlineError naming what is wrong (shape, check digit)."""
    m = _LINE.match((text or "").strip())
    if m is None:
        raise ScanlineError(f"scanline: expected \"ACCOUNT {'0' * AMOUNT_DIGITS} D\" (the account, the amount in "
                            f"{AMOUNT_DIGITS} digits of cents and a check digit), got {text!r}")
    account, cents = " ".join(m["account"].split()), m["amount"]
    if not _digits(account):
        raise ScanlineError("scanline: the account has no letters or digits")
    if int(m["check"]) != _check(account, cents):
        raise ScanlineError(ERR_CHECK_DIGIT)
    return Scanline(account=account, amount=Decimal(cents) * CENT)
