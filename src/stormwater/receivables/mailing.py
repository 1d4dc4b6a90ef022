"""Mailing bills and demands by email where an address is on file, with a record of each sending
(stormwater.notices.NoticeSent: to whom, what, its SHA-256, queued and sent times).

The paper copy remains the legal mailing; email is sent where the owner gave an address. Bills go
out by a command a scheduler (or the Collector) runs after a bill run, so a 100,000-bill run is not
slowed by rendering PDFs; demands go out when they are served.
"""
from __future__ import annotations

from django.db import transaction

from stormwater.notices.models import NoticeSent
from stormwater.notices.services import notice_email
from stormwater.utility.documents import bill_pdf, render_pdf
from stormwater.utility.models import Bill

from .ledger import account_position
from .models import Demand


def billed_owner(account):
    """The owner a bill or demand is addressed to: the unit's owner for an association unit."""
    return account.unit.owner if account.unit_id else account.parcel.owner


def demand_email(demand: Demand):
    """Queue the demand statement (PDF) to the owner's email, if any (Ch. 295 Art. IV billing ¶D)."""
    owner = billed_owner(demand.account)
    if owner is None or not owner.email:
        return None
    pos = account_position(demand.account, as_of=demand.served_on)
    pdf = render_pdf("receivables/demand_pdf.html", {"d": demand, "pos": pos})
    return notice_email(
        to=owner.email, kind="demand", obj=demand,
        subject=f"Stormwater demand for payment: account {demand.account.number}",
        body=(f"A statement of the stormwater charges due on account {demand.account.number}, with a demand for "
              f"payment dated {demand.served_on:%B %-d, %Y}, is attached (Ch. 295 Art. IV billing ¶D)."),
        attachment=(f"demand-{demand.pk}.pdf", pdf, "application/pdf"))


@transaction.atomic
def bill_run_email(*, run) -> dict:
    """Email each bill of a run to its owner where an address is on file; idempotent (a bill already
    emailed is not emailed again)."""
    sent_ids = set(NoticeSent.objects.filter(kind="bill", object_type="utility.bill")
                   .values_list("object_id", flat=True))
    queued = skipped = already = 0
    for bill in (Bill.objects.filter(run=run).select_related("account__unit__owner", "account__parcel__owner",
                                                             "parcel", "run__resolution").order_by("number")):
        if str(bill.pk) in sent_ids:
            already += 1
            continue
        owner = billed_owner(bill.account)
        if owner is None or not owner.email:
            skipped += 1
            continue
        notice_email(to=owner.email, kind="bill", obj=bill, subject=f"Stormwater bill {bill.number}",
                     body=(f"Your stormwater bill {bill.number} for {bill.parcel.address} is attached: "
                           f"${bill.amount}, payment due 30 days after the issue date (Ch. 295 Art. IV)."),
                     attachment=(f"stormwater-bill-{bill.number}.pdf", bill_pdf(bill), "application/pdf"))
        queued += 1
    return {"queued": queued, "no_address": skipped, "already_sent": already}
