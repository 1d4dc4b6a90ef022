"""Mailing bills and demands by email where an address is on file, through the outbox
(stormwater.notices: each message recorded with its content and an idempotency key, then sent in short
transactions of its own, exactly once across crashes and re-runs).

The paper copy remains the mailing; email is sent where the owner gave an address. An owner who chose bills by
e-mail only (``parcels.Owner.paperless``, issue 17) is e-mailed and left out of the print file (``utility.paperless.bills_to_print``). Bills go out by a
background job (``bills_email``: the bill run page's button, ``stormwater bills_email --run N``), so a
100,000-bill run is not slowed by rendering PDFs; demands go out when they are served.
"""
from __future__ import annotations

from collections.abc import Callable

from django.db import transaction
from django.db.models import CharField
from django.db.models.functions import Cast

from stormwater.notices.models import NoticeSent, NoticeStatus
from stormwater.notices.outbox import MAX_ATTEMPTS, outbox_recover, outbox_send
from stormwater.notices.services import notice_email, notice_record
from stormwater.utility.documents import bill_pdf, render_pdf
from stormwater.utility.models import Bill
from stormwater.utility.paperless import bills_to_print, paperless_count, paperless_q  # noqa: F401

from .ledger import account_position
from .models import Demand

CHUNK = 500  # bills read (and their outbox rows looked up) per query


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
        to=owner.email, kind="demand", obj=demand, key=f"demand:{demand.pk}",
        subject=f"Stormwater demand for payment: account {demand.account.number}",
        body=(f"A statement of the stormwater charges due on account {demand.account.number}, with a demand for "
              f"payment dated {demand.served_on:%B %-d, %Y}, is attached (Ch. 295 Art. IV billing ¶D)."),
        attachment=(f"demand-{demand.pk}.pdf", pdf, "application/pdf"))


def demand_document(demand: Demand):
    """The demand statement as a WeasyPrint document, for the print file of a day's demands (jobs: demands_pdf)."""
    from stormwater.utility.documents import render_document

    pos = account_position(demand.account, as_of=demand.served_on)
    return render_document("receivables/demand_pdf.html", {"d": demand, "pos": pos})


def bill_key(bill) -> str:
    return f"bill:{bill.pk}"


def _record_bill(bill, email: str) -> NoticeSent | None:
    """Render the bill's PDF (outside any transaction: seconds of CPU must not hold the write lock), then
    record its email in the outbox in one short transaction."""
    pdf = bill_pdf(bill)
    with transaction.atomic():
        return notice_record(
            to=email, kind="bill", obj=bill, key=bill_key(bill), subject=f"Stormwater bill {bill.number}",
            body=(f"Your stormwater bill {bill.number} for {bill.parcel.address} is attached: ${bill.amount}, "
                  f"payment due 30 days after the issue date (Ch. 295 Art. IV)."),
            attachment=(f"stormwater-bill-{bill.number}.pdf", pdf, "application/pdf"))


def bill_run_email(*, run, progress: Callable[[int, int], None] | None = None,
                   log: Callable[[str], None] | None = None) -> dict:
    """Email each bill of a run to its owner where an address is on file, exactly once.

    1. Record: each bill not yet in the outbox gets its PDF rendered and its email recorded (key ``bill:<id>``).
    2. Send: each recorded email still queued (or failed, fewer than 3 tries) is sent in its own transactions.
    Re-run after a crash: recorded bills are not recorded again, sent ones not sent again; one that a dead
    process was sending is ``unknown`` (check before resending), never sent twice.
    """
    progress = progress or (lambda done, total: None)
    log = log or (lambda line: None)
    lost = outbox_recover()
    if lost:
        log(f"{len(lost)} e-mail(s) were being sent when a process stopped: marked unknown (check them on /notices/).")
    bills = (Bill.objects.filter(run=run).select_related("account__unit__owner", "account__parcel__owner", "parcel",
                                                           "run__resolution").order_by("number"))
    total = bills.count()
    counts = {"queued": 0, "no_address": 0, "already_sent": 0}
    to_send: list[int] = []
    done = 0
    progress(0, total)
    log(f"Recording the e-mails of {total} bills (a PDF each).")
    for start in range(0, total, CHUNK):
        chunk = list(bills[start:start + CHUNK])
        known = {k: (pk, st, n) for k, pk, st, n in NoticeSent.objects.filter(key__in=[bill_key(b) for b in chunk])
                 .values_list("key", "pk", "status", "attempts")}
        for bill in chunk:
            done += 1
            if bill_key(bill) in known:
                pk, status, attempts = known[bill_key(bill)]
                if status == NoticeStatus.SENT:
                    counts["already_sent"] += 1
                elif status == NoticeStatus.QUEUED or (status == NoticeStatus.FAILED and attempts < MAX_ATTEMPTS):
                    to_send.append(pk)
                progress(done, total)
                continue
            owner = billed_owner(bill.account)
            if owner is None or not owner.email:
                counts["no_address"] += 1
            else:
                rec = _record_bill(bill, owner.email)
                if rec is not None:
                    counts["queued"] += 1
                    to_send.append(rec.pk)
            progress(done, total)
    log(f"Sending {len(to_send)} e-mail(s).")
    progress(0, len(to_send))
    sent = {}
    for i, pk in enumerate(to_send, 1):
        status = outbox_send(notice_id=pk)
        sent[status] = sent.get(status, 0) + 1
        if status != NoticeStatus.SENT:
            log(f"Notice {pk}: {NoticeStatus(status).label} (see /notices/).")
        progress(i, len(to_send))
    run_bill_ids = Bill.objects.filter(run=run).annotate(sid=Cast("pk", CharField())).values("sid")
    unknown = NoticeSent.objects.filter(kind="bill", object_type="utility.bill", status=NoticeStatus.UNKNOWN,
                                        object_id__in=run_bill_ids).count()
    return {**counts, "sent": sent.get(NoticeStatus.SENT, 0), "failed": sent.get(NoticeStatus.FAILED, 0),
            "unknown": unknown}
