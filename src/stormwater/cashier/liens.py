"""Municipal lien certificates (MGL c.60 §23) for the stormwater charges of a parcel (issue 17).

MGL c.60 §23: the collector, on the written request of any person (a buyer, a closing attorney, a lender) and
on payment of the fee, issues within ten days a certificate of all unpaid taxes and charges that are or may
become a lien on the parcel. For the stormwater utility those are (Ch. 295 Art. IV billing ¶C–¶D): every
unpaid installment (fee, interest to the certificate's date, demand charges) of every account of the parcel
(the whole parcel and each association unit), and the amounts already committed to the Board of Assessors for
the tax bill and not yet paid there. The ten days' last day rolls forward over a weekend or legal holiday
(MGL c.4 §9, ``rules.calendar.add_calendar_days``). The fee is ``TownConfig.lien_certificate_fee``.
"""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from stormwater.audit.services import actor_or_none as _user, audit_record
from stormwater.parcels.models import Parcel
from stormwater.receivables.ledger import account_position
from stormwater.receivables.models import CommitmentLine
from stormwater.receivables.services import CollectionError
from stormwater.rules.calendar import add_calendar_days
from stormwater.rules.money import ZERO, fmt, round_cents
from stormwater.utility.models import Account

from .models import LienCertificate, LienChannel

# MGL c.60 §23: "within ten days after such request".
LIEN_CERTIFICATE_DAYS = 10


def lien_certificate_due(requested_on: date) -> date:
    return add_calendar_days(requested_on, LIEN_CERTIFICATE_DAYS)


def lien_figures(parcel: Parcel, *, as_of: date) -> dict:
    """The certificate's lines as of a day: each open installment of each of the parcel's accounts with interest
    to the day, credit balances, and the committed amounts not yet paid through the tax bill."""
    accounts = list(Account.objects.filter(parcel=parcel).select_related("unit").order_by("number"))
    out_accounts, total, not_yet_due = [], ZERO, ZERO
    for a in accounts:
        pos = account_position(a, as_of=as_of)
        items = [{"bill": d.installment.bill.number, "seq": d.installment.seq,
                  "due_date": str(d.installment.due_date), "principal": fmt(d.principal), "interest": fmt(d.interest),
                  "demand": fmt(d.demand), "total": fmt(d.total),
                  "back_bill": bool(d.installment.bill.is_back_bill), "issued": d.issued,
                  "issue_date": str(d.installment.issue_date)}
                 for d in pos.dues if d.total != 0]
        # An installment of an issued bill whose own issue date is still to come is listed (a buyer takes it on)
        # but not yet owed: the balance is the ledger through the day plus interest (ledger.account_position).
        later = sum((d.total for d in pos.dues if not d.issued), ZERO)
        owed = round_cents(pos.total)
        out_accounts.append({"number": a.number, "unit": a.unit.unit if a.unit_id else "", "items": items,
                             "credit": fmt(pos.credit), "balance": fmt(owed), "not_yet_due": fmt(later)})
        total += max(owed, ZERO)
        not_yet_due += later
    liens = []
    for line in (CommitmentLine.objects.filter(account__in=accounts, paid_on__isnull=True)
                 .select_related("commitment", "account").order_by("commitment__committed_on", "id")):
        liens.append({"account": line.account.number, "tax_fiscal_year": line.commitment.tax_fiscal_year,
                      "committed_on": str(line.commitment.committed_on), "principal": fmt(line.principal),
                      "interest": fmt(line.interest), "demand_charges": fmt(line.demand_charges),
                      "total": fmt(line.total)})
        total += line.total
    return {"as_of": str(as_of), "parcel_id": parcel.parcel_id, "address": parcel.address,
            "owner": parcel.owner.name if parcel.owner else "", "accounts": out_accounts, "committed": liens,
            "total": fmt(total), "not_yet_due": fmt(not_yet_due)}


@transaction.atomic
def lien_certificate_request(*, parcel: Parcel, requester_name: str, requester_role: str = "",
                             requester_email: str = "", channel: str = LienChannel.COUNTER, fee_reference: str = "",
                             requested_on: date | None = None, acting_user) -> LienCertificate:
    """Record a request (online or at the counter); the ten-day clock of MGL c.60 §23 starts on the day."""
    from stormwater.townconfig import town_config

    if channel not in LienChannel.values:
        raise CollectionError(f"channel: one of {', '.join(LienChannel.values)}")
    if not (requester_name or "").strip():
        raise CollectionError("requester_name: required (MGL c.60 §23: a written request names the person)")
    today = timezone.localdate()
    requested_on = requested_on or today
    if requested_on > today:
        raise CollectionError(f"requested_on: {requested_on} is in the future")
    cert = LienCertificate.objects.create(
        parcel=parcel, requester_name=requester_name.strip()[:200], requester_role=(requester_role or "").strip()[:80],
        requester_email=(requester_email or "").strip(), channel=channel, requested_on=requested_on,
        requested_by=_user(acting_user), due_on=lien_certificate_due(requested_on),
        fee=town_config().lien_certificate_fee, fee_reference=(fee_reference or "").strip()[:80])
    audit_record(actor=acting_user, action="lien_certificate.request", obj=cert,
                 data={"parcel": parcel.parcel_id, "channel": channel, "due_on": str(cert.due_on),
                       "fee": fmt(cert.fee)})
    return cert


@transaction.atomic
def lien_certificate_issue(*, cert: LienCertificate, acting_user, fee_reference: str = "",
                           as_of: date | None = None) -> LienCertificate:
    """Issue the certificate as of a day (today by default): its figures are fixed as issued, the PDF is made
    from them, and it is e-mailed to the requester where an address was given."""
    cert = LienCertificate.objects.select_for_update().get(pk=cert.pk)
    if cert.issued_on:
        raise CollectionError(f"Certificate {cert.number} was already issued on {cert.issued_on}.")
    today = timezone.localdate()
    as_of = as_of or today
    if as_of > today + timedelta(days=60):
        raise CollectionError("as_of: at most 60 days ahead (interest is computed to that day)")
    if fee_reference.strip():
        cert.fee_reference = fee_reference.strip()[:80]
    if cert.fee > 0 and not cert.fee_reference:
        raise CollectionError(f"fee_reference: record the ${fmt(cert.fee)} fee's receipt or check before issuing "
                              "(MGL c.60 §23)")
    cert.figures = lien_figures(cert.parcel, as_of=as_of)
    cert.total_due = Decimal(cert.figures["total"])
    cert.issued_on, cert.issued_by = today, _user(acting_user)
    cert.save()
    audit_record(actor=acting_user, action="lien_certificate.issue", obj=cert,
                 data={"number": cert.number, "as_of": str(as_of), "total": cert.figures["total"],
                       "late": today > cert.due_on})
    if cert.requester_email:
        from stormwater.notices.services import notice_email

        from .documents import certificate_pdf

        notice_email(to=cert.requester_email, kind="lien_certificate", obj=cert, key=f"lien-certificate-{cert.pk}",
                     subject=f"Municipal lien certificate {cert.number} — parcel {cert.parcel.parcel_id}",
                     body=(f"The municipal lien certificate for {cert.parcel.address} (parcel "
                           f"{cert.parcel.parcel_id}) is attached: stormwater charges as of {as_of:%B %-d, %Y}, "
                           f"total ${cert.figures['total']}.\n"),
                     attachment=(f"{cert.number}.pdf", certificate_pdf(cert), "application/pdf"))
    return cert
