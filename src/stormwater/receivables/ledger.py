"""Reading an account's ledger as installments with buckets (demand, interest, principal): the one reading is the
utility's (``stormwater.utility.ledger``, beside the ledger it reads, so that the bill and the bill run use it
without importing collections); its names stay importable from here."""
from __future__ import annotations

from stormwater.utility.ledger import (  # noqa: F401
    AccountPosition, InstallmentDue, account_dues, account_position, interest_accrued_total, unapplied_credit)
