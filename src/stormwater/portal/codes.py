"""The verification code printed on every bill: proof that whoever signs up holds the record owner's mail.

It is derived, not stored (no schema change): HMAC-SHA256 of the account number keyed by SECRET_KEY, so the
same account always prints the same code, nobody can compute it without the key, and rotating SECRET_KEY
changes every code (print new bills after a rotation).
"""
from __future__ import annotations

import base64
import re

from django.utils.crypto import constant_time_compare, salted_hmac

_SALT = "stormwater.portal.bill-verification-code"
_LEN = 10  # base32 characters: 50 bits; sign-up attempts are throttled as well


def verification_code(account_number: str) -> str:
    """'ABCDE-FGHIJ' for an account number (letters A–Z and digits 2–7: no 0/O or 1/I to misread)."""
    digest = salted_hmac(_SALT, account_number, algorithm="sha256").digest()
    raw = base64.b32encode(digest).decode()[:_LEN]
    return f"{raw[:5]}-{raw[5:]}"


def normalize_code(text: str) -> str:
    """What a person typed, in the printed form: case, spaces and hyphens do not matter."""
    raw = re.sub(r"[\s\-]", "", text or "").upper()
    return f"{raw[:5]}-{raw[5:]}" if len(raw) == _LEN else raw


def verification_code_matches(account_number: str, typed: str) -> bool:
    return constant_time_compare(verification_code(account_number), normalize_code(typed))
