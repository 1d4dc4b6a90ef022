"""Issue 5 "Done when": an owner's abatement from application to a Select Board reversal and a refund in
the ledger; a credit granted and later revoked, the next bill run showing the fee back; each step
writing its PDF into the case file."""
from datetime import date, datetime
from decimal import Decimal as D
from zoneinfo import ZoneInfo

from django.core import mail

from stormwater.receivables.services import payment_post
from stormwater.relief import services as sv
from stormwater.relief import workflow as wf
from stormwater.relief.models import CreditType
from stormwater.utility.models import Bill, EntryKind, LedgerEntry
from stormwater.utility.services import bill_run_issue, fiscal_year

from .conftest import house_bill, pdf_upload

EASTERN = ZoneInfo("America/New_York")


def pdf_tags(case):
    docs = list(case.documents.filter(generated=True))
    for d in docs:
        assert d.content_type == "application/pdf" and d.size > 1000
    return [d.tag for d in docs]


def test_an_owners_abatement_goes_to_a_select_board_reversal_and_a_refund(billed, personas, at,
                                                                          django_capture_on_commit_callbacks):
    owner, director, staff, clerk = (personas[r] for r in ("owner", "director", "staff", "clerk"))
    owner.email = "olivia@example.org"
    owner.save()
    bill = house_bill(billed)
    at(date(2026, 9, 25))
    payment_post(account=bill.account, amount=D("53.16"), received_on=date(2026, 9, 25), acting_user=None)
    # Tue Oct 13, 2026: the 30th day (Sat Oct 10) rolled past Sunday and Columbus Day: the last day to apply.
    at(date(2026, 10, 13))
    ab = sv.abatement_apply(bill=bill, grounds=["area"], statement="The shed was removed in 2025.",
                            amount_requested=D("26.58"), disposition="refund", acting_user=owner,
                            uploads=[("evidence", pdf_upload("photo.pdf"))])
    case = ab.case
    assert case.status == wf.AbatementStatus.FILED
    clock = case.clocks.get(kind="abatement_decision")
    assert clock.state().due == date(2026, 12, 14)  # 60 days: Sat Dec 12 → Mon Dec 14

    at(date(2026, 11, 2))
    sv.abatement_decide(abatement=ab, decision="deny", reasons="The 2026 survey shows the shed.",
                        acting_user=director)
    case.refresh_from_db()
    assert case.status == wf.AbatementStatus.DENIED
    assert case.clocks.get(kind="abatement_decision").met_on == date(2026, 11, 2)
    assert case.clocks.get(kind="appeal_filing").state().due == date(2026, 12, 2)

    at(date(2026, 12, 2))  # the 30th day after the decision: still in time
    ap = sv.appeal_file(decided_case=case, grounds="The shed was removed; see the photograph.", acting_user=owner)
    assert ap.case.parent == case and ap.case.clocks.get(kind="appeal_hearing_latest").state().due == date(2027, 3, 2)
    sv.appeal_transmit_record(appeal=ap, acting_user=staff)
    at(date(2026, 12, 7))
    with django_capture_on_commit_callbacks(execute=True):  # email goes only after commit
        sv.appeal_schedule_hearing(appeal=ap, hearing_at=datetime(2027, 1, 12, 19, 0, tzinfo=EASTERN),
                                   place="Town Hall, Select Board meeting room", acting_user=clerk)
    assert [m.subject for m in mail.outbox] == [f"{ap.case.number}: Notice of hearing before the Select Board"]
    assert mail.outbox[0].to == ["olivia@example.org"] and mail.outbox[0].attachments
    ap.refresh_from_db()
    assert ap.notice_sent_on == date(2026, 12, 7)
    # Jan 2 is a Saturday after New Year's Day: the notice had to go by Thu Dec 31.
    notice = ap.case.clocks.get(kind="hearing_notice_latest")
    assert notice.state().due == date(2026, 12, 31) and notice.met_on == date(2026, 12, 7)

    at(date(2027, 1, 12))
    sv.appeal_close_hearing(appeal=ap, acting_user=clerk)
    assert ap.case.clocks.get(kind="appeal_decision").state().due == date(2027, 2, 11)
    at(date(2027, 1, 20))
    sv.appeal_decide(appeal=ap, outcome="reverse", amount=D("26.58"), findings="The shed was gone by 2025.",
                     acting_user=clerk)
    ap.refresh_from_db()
    case.refresh_from_db()
    assert ap.case.status == wf.AppealStatus.REVERSED and ap.amount_abated == D("26.58")
    assert case.status == wf.AbatementStatus.REVERSED_ON_APPEAL
    entries = LedgerEntry.objects.filter(bill=bill)
    assert sum(e.amount for e in entries.filter(kind=EntryKind.ABATEMENT)) == D("-26.58")
    assert sum(e.amount for e in entries.filter(kind=EntryKind.REFUND)) == D("26.58")
    assert pdf_tags(case) == ["receipt", "decision"]
    assert pdf_tags(ap.case) == ["receipt", "transmittal", "hearing_notice", "decision"]


def test_a_credit_granted_and_later_revoked_and_the_next_bill_shows_the_fee_back(billed, policy, personas, at):
    owner, director, staff = personas["owner"], personas["director"], personas["staff"]
    house = billed["house"]
    bmp = CreditType.objects.get(policy=policy, code="BMP")
    at(date(2027, 3, 1))
    app = sv.credit_apply(parcel=house, credit_type=bmp, statement="Rain garden and dry well for the roof.",
                          acting_user=owner, uploads=[("bmp_plan", pdf_upload("plan.pdf"))])
    try:
        sv.credit_determine_complete(application=app, acting_user=staff)
    except Exception as e:  # the O&M plan and inspection report are missing
        assert "Operation and maintenance plan" in str(e)
    sv.credit_determine_incomplete(application=app, missing="O&M plan\nInspection report", acting_user=staff)
    sv.credit_upload(application=app, upload=pdf_upload("om.pdf"), tag="om_plan", acting_user=owner)
    sv.credit_upload(application=app, upload=pdf_upload("insp.pdf"), tag="inspection", acting_user=owner)
    sv.credit_resubmit(application=app, acting_user=owner)
    at(date(2027, 3, 3))
    sv.credit_determine_complete(application=app, acting_user=staff)
    assert app.case.clocks.get(kind="credit_decision").state().due == date(2027, 4, 2)
    at(date(2027, 3, 20))
    sv.credit_decide(application=app, decision="grant", reasons="", acting_user=director)
    app.refresh_from_db()
    assert app.case.status == wf.CreditStatus.GRANTED and app.granted_percent == D("25")

    label, start, end = fiscal_year(2028)
    at(date(2027, 9, 10))
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2027, 9, 10),
                   acting_user=None)
    b28 = Bill.objects.get(parcel=house, period_start=start)
    assert b28.credit_percent == D("25") and b28.amount == D("39.87")  # 53.16 − 13.29
    assert app.case.number in b28.explanation

    at(date(2027, 10, 5))
    g = app.grants.get()
    sv.credit_revoke(grant=g, lapsed=False, reason="The rain garden was paved over (inspection Oct 1).",
                     acting_user=director)
    app.case.refresh_from_db()
    assert app.case.status == wf.CreditStatus.REVOKED
    label, start, end = fiscal_year(2029)
    at(date(2028, 9, 11))
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2028, 9, 11),
                   acting_user=None)
    b29 = Bill.objects.get(parcel=house, period_start=start)
    assert b29.credit_percent == 0 and b29.amount == D("53.16")
    assert pdf_tags(app.case) == ["receipt", "incomplete", "complete", "decision", "revocation"]
