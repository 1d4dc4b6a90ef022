"""The day the books are closed through (issue 17): nothing is posted on or before it.

Closing the books is Finance's act in collections (``receivables.PeriodClose``, ``receivables.services.period_close``),
which sits above the utility (it posts payments to the utility's ledger); the bill run posts too (its charges, a
void's reversals) and must stay out of closed books. So the utility owns this small registry and collections
registers its reader at start-up (``receivables.apps.ReceivablesConfig.ready``), as Django's admin registers
ModelAdmins (docs/architecture.md "Layers")."""
from __future__ import annotations

from collections.abc import Callable
from datetime import date

_reader: Callable[[], date | None] | None = None


def register_closed_through(reader: Callable[[], date | None]) -> None:
    global _reader
    _reader = reader


def closed_through() -> date | None:
    """The last day of the closed books, or None while none are closed."""
    if _reader is None:
        raise RuntimeError("No reader of the closed books is registered: stormwater.receivables must be in "
                           "INSTALLED_APPS (its AppConfig.ready registers it in stormwater.utility.books).")
    return _reader()
