"""Abatement of stormwater charges committed to the tax bill (MGL c.83 §16A–§16F; Ch. 295 Art. IV appeals ¶B): the
application filed with the Department, a copy to the Board of Assessors, in the form of a notice of appeal. It is
heard and decided by the Select Board on the appeal's time limits (``appeals``).
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.db import transaction

from stormwater.audit.services import actor_or_none as _user, audit_record
from stormwater.cases.services import case_document_add
from stormwater.rules.deadlines import deadline
from stormwater.rules.money import ZERO, fmt, fmt_display, round_cents
from stormwater.utility.models import Bill

from . import workflow as wf
from .acts import ReliefError, _check_on, _d, _notice, _open, _start_clock
from .appeals import ERR_APPEAL_GROUNDS, ERR_LIEN_AMOUNT
from .models import Appeal, AppealSubject

ERR_LIEN_ACCOUNT = "Commitment line {line} is not on the account of bill {bill}."


@transaction.atomic
def lien_abatement_apply(*, bill: Bill, commitment_line, grounds: str, amount_requested: Decimal, acting_user,
                         assessors_copy_on: date | None = None, uploads=(), on: date | None = None) -> Appeal:
    """An abatement of charges committed to the tax bill (MGL c.83 §16A–§16F): filed with the Department
    with a copy to the Board of Assessors, in the form of a notice of appeal, heard by the Select Board on
    the appeal's time limits (appeals ¶B)."""
    on = _check_on(on)
    if commitment_line.account_id != bill.account_id:
        raise ReliefError(ERR_LIEN_ACCOUNT.format(line=commitment_line.pk, bill=bill.number))
    if not (grounds or "").strip():
        raise ReliefError(ERR_APPEAL_GROUNDS, field="grounds")
    prior = sum((a.amount_abated or ZERO for a in Appeal.objects.filter(commitment_line=commitment_line)), ZERO)
    most = commitment_line.total - prior
    amount = round_cents(Decimal(amount_requested))
    if not (ZERO < amount <= most):
        raise ReliefError(ERR_LIEN_AMOUNT.format(most=fmt_display(most)))
    owner = bill.account.unit.owner if bill.account.unit_id else bill.parcel.owner
    case = _open(wf.LIEN, title=f"§16E abatement of committed charges, bill {bill.number} ({bill.parcel.address})",
                 acting_user=acting_user, owner=owner, applicant=_user(acting_user), on=on)
    ap = Appeal.objects.create(case=case, subject=AppealSubject.LIEN, grounds=grounds.strip(), bill=bill,
                               commitment_line=commitment_line, amount_requested=amount,
                               assessors_copy_on=assessors_copy_on or on)
    for tag, upload in uploads:
        case_document_add(case=case, upload=upload, tag=tag or "evidence", title="Evidence", acting_user=acting_user,
                          keep_location=False)  # an owner's photo without its GPS position (issue 27)
    _start_clock(case, wf.HEARING, on, acting_user)
    paras = [f"Application received {_d(on)} to abate ${fmt_display(amount)} of stormwater charges on account "
             f"{bill.account.number} committed to the FY{commitment_line.commitment.tax_fiscal_year} tax bill "
             f"(committed {_d(commitment_line.commitment.committed_on)}, ${fmt_display(commitment_line.total)}).",
             f"Grounds: {grounds.strip()}",
             f"The Select Board will hold a hearing no later than {_d(deadline(wf.HEARING, on).due)} (within 90 days) "
             "with notice at least 10 days before, and decide in writing within 30 days of the hearing "
             "(Ch. 295 Art. IV appeals ¶A–¶B; MGL c.83 §16E)."]
    _notice(case, tag="receipt", subject="§16E abatement application received", on=on, acting_user=acting_user,
            paragraphs=paras, citation="Ch. 295 Art. IV appeals ¶B; MGL c.83 §16E")
    _notice(case, tag="assessors_copy", subject="Copy to the Board of Assessors: §16E abatement application", on=on,
            acting_user=acting_user, paragraphs=paras, citation="Ch. 295 Art. IV appeals ¶B",
            to_name="Board of Assessors", to_address="Longmeadow Town Hall\n20 Williams Street\nLongmeadow, MA 01106",
            to_email="")
    audit_record(actor=acting_user, action="lien_abatement.apply", obj=ap,
                 data={"bill": bill.number, "line": commitment_line.pk, "amount": fmt(amount)})
    return ap
