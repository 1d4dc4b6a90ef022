"""Which bills of a run go by e-mail only and which are printed (issue 17 "Paperless bills"): an owner who chose
bills by e-mail only (``parcels.Owner.paperless``) and has an address on file is e-mailed and left out of the print
file. Read by the bill run page, the print job and the e-mailing (``receivables.mailing``, which names these
too)."""
from __future__ import annotations

from django.db.models import Q

from .models import Bill


def paperless_q(prefix: str = "") -> Q:
    """Bills (``prefix`` "" for a Bill queryset) whose billed owner — the unit's owner for an association unit —
    chose bills by e-mail only and has an address on file (issue 17 "Paperless bills"). Without an address a bill
    is printed and mailed whatever the choice says."""
    def owner(path: str) -> Q:
        return Q(**{f"{prefix}{path}__paperless": True}) & ~Q(**{f"{prefix}{path}__email": ""})

    return ((Q(**{f"{prefix}account__unit__isnull": True}) & owner("account__parcel__owner"))
            | (Q(**{f"{prefix}account__unit__isnull": False}) & owner("account__unit__owner")))


def bills_to_print(run):
    """The bills of ``run`` for the print file (the mailing): every bill but the paperless owners' (``paperless_q``),
    in bill-number order."""
    return Bill.objects.filter(run=run).exclude(paperless_q()).order_by("number")


def paperless_count(run) -> int:
    """How many bills of ``run`` go by e-mail only (said on the bill run page and by the print job)."""
    return Bill.objects.filter(run=run).filter(paperless_q()).count()
