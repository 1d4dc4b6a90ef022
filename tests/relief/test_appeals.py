"""Appeals to the Select Board (Ch. 295 Art. IV appeals ¶A) and §16E abatements of committed charges
(appeals ¶B): filing within 30 days with grounds, record transmitted, hearing within 90 days with notice
≥ 10 days before (rolled back), decision within 30 days; reversals name the sum or the credit."""
from datetime import date, datetime
from decimal import Decimal as D
from zoneinfo import ZoneInfo

import pytest

from stormwater.cases.services import TransitionError, case_transition
from stormwater.receivables.services import commitment_create, demand_serve, payment_post
from stormwater.relief import services as sv
from stormwater.relief import workflow as wf
from stormwater.relief.models import CreditType
from stormwater.utility.models import Account, Bill, EntryKind, LedgerEntry

from .conftest import credit_denial_appealed_naming_an_abatement, house_bill, pdf_text, pdf_upload

ET = ZoneInfo("America/New_York")


@pytest.fixture
def denied(billed, personas, at):
    """The owner's abatement of the house bill, paid in full Sep 20, filed Oct 1, denied Thu Oct 15, 2026."""
    bill = house_bill(billed)
    at(date(2026, 9, 20))
    payment_post(account=bill.account, amount=D("53.16"), received_on=date(2026, 9, 20), acting_user=None)
    at(date(2026, 10, 1))
    ab = sv.abatement_apply(bill=bill, grounds=["class"], statement="One dwelling, not two.", amount_requested=D("26.58"),
                            disposition="refund", acting_user=personas["owner"])
    at(date(2026, 10, 15))
    sv.abatement_decide(abatement=ab, decision="deny", reasons="The Assessors list two units.",
                        acting_user=personas["director"])
    ab.refresh_from_db()
    return ab


@pytest.mark.parametrize("day,ok", [(date(2026, 11, 13), True), (date(2026, 11, 14), True),  # Sat: 30th day
                                    (date(2026, 11, 16), True),  # rolled to Monday
                                    (date(2026, 11, 17), False)])
def test_an_appeal_is_filed_within_30_days_of_the_written_decision(denied, personas, at, day, ok):
    at(day)
    if ok:
        ap = sv.appeal_file(decided_case=denied.case, grounds="Only one dwelling.", acting_user=personas["owner"])
        assert ap.case.status == wf.AppealStatus.FILED and ap.decision_date == date(2026, 10, 15)
        assert denied.case.clocks.get(kind="appeal_filing").met_on == day
    else:
        with pytest.raises(sv.ReliefError, match="the last day was 2026-11-16"):
            sv.appeal_file(decided_case=denied.case, grounds="Only one dwelling.", acting_user=personas["owner"])


def test_an_appeal_must_specify_its_grounds_and_is_filed_once(denied, personas, at):
    at(date(2026, 10, 20))
    with pytest.raises(sv.ReliefError, match="specify its grounds"):
        sv.appeal_file(decided_case=denied.case, grounds="  ", acting_user=personas["owner"])
    ap = sv.appeal_file(decided_case=denied.case, grounds="One unit.", acting_user=personas["owner"])
    with pytest.raises(sv.ReliefError, match=ap.case.number):
        sv.appeal_file(decided_case=denied.case, grounds="again", acting_user=personas["owner"])


@pytest.fixture
def appeal(denied, personas, at):
    at(date(2026, 10, 20))  # filed Tue Oct 20: hearing by Mon Jan 18 (MLK Day) → Tue Jan 19, 2027
    ap = sv.appeal_file(decided_case=denied.case, grounds="One unit.", acting_user=personas["owner"])
    sv.appeal_transmit_record(appeal=ap, acting_user=personas["staff"])
    return ap


def test_the_record_goes_to_the_select_board_with_its_documents(appeal):
    doc = appeal.case.documents.get(tag="transmittal")
    assert doc.generated and doc.content_type == "application/pdf"
    assert appeal.case.clocks.get(kind="appeal_hearing_latest").state().due == date(2027, 1, 19)


@pytest.mark.parametrize("hearing,ok", [(date(2027, 1, 15), True), (date(2027, 1, 19), True),
                                        (date(2027, 1, 20), False)])
def test_the_hearing_is_set_within_90_days_of_the_filing(appeal, personas, at, hearing, ok):
    at(date(2026, 11, 2))
    when = datetime(hearing.year, hearing.month, hearing.day, 19, 0, tzinfo=ET)
    if ok:
        sv.appeal_schedule_hearing(appeal=appeal, hearing_at=when, place="Town Hall", acting_user=personas["clerk"])
        appeal.refresh_from_db()
        assert appeal.case.status == wf.AppealStatus.HEARING_SCHEDULED and appeal.notice_sent_on == date(2026, 11, 2)
    else:
        with pytest.raises(sv.ReliefError, match="the latest date is 2027-01-19"):
            sv.appeal_schedule_hearing(appeal=appeal, hearing_at=when, place="Town Hall", acting_user=personas["clerk"])


@pytest.mark.parametrize("today,ok", [(date(2027, 2, 11), True), (date(2027, 2, 12), True),
                                      (date(2027, 2, 13), False)])
def test_a_hearing_needs_notice_at_least_10_days_before_rolled_back(today, ok, billed, personas, at):
    """A hearing on Thu Feb 25, 2027: 10 days before is Mon Feb 15 (Washington's Birthday) → Fri Feb 12."""
    bill = house_bill(billed)
    at(date(2026, 9, 30))
    payment_post(account=bill.account, amount=D("53.16"), received_on=date(2026, 9, 30), acting_user=None)
    ab = _denied_on(bill, personas, at, date(2026, 11, 30))  # appeal filed Dec 1: hearing by Mar 1, 2027
    at(date(2026, 12, 1))
    ap = sv.appeal_file(decided_case=ab.case, grounds="x", acting_user=personas["owner"])
    sv.appeal_transmit_record(appeal=ap, acting_user=personas["staff"])
    at(today)
    when = datetime(2027, 2, 25, 19, 0, tzinfo=ET)
    if ok:
        sv.appeal_schedule_hearing(appeal=ap, hearing_at=when, place="Town Hall", acting_user=personas["clerk"])
        assert ap.case.clocks.get(kind="hearing_notice_latest").state().due == date(2027, 2, 12)
    else:
        with pytest.raises(sv.ReliefError, match="had to be sent by 2027-02-12"):
            sv.appeal_schedule_hearing(appeal=ap, hearing_at=when, place="Town Hall", acting_user=personas["clerk"])


def _denied_on(bill, personas, at, day):
    """An abatement of ``bill`` filed Oct 1 (in time, paid) and denied on ``day``."""
    at(date(2026, 10, 1))
    ab = sv.abatement_apply(bill=bill, grounds=["area"], statement="x", amount_requested=D("26.58"),
                            disposition="refund", acting_user=personas["owner"])
    at(day)
    sv.abatement_decide(abatement=ab, decision="deny", reasons="No.", acting_user=personas["director"], on=day)
    ab.refresh_from_db()
    return ab


def test_the_hearing_cannot_close_before_the_notice_nor_before_it_is_held(appeal, personas, at):
    at(date(2026, 11, 2))
    with pytest.raises(TransitionError):  # not scheduled yet: the table refuses
        case_transition(case=appeal.case, to=wf.AppealStatus.HEARING_CLOSED, acting_user=personas["clerk"])
    sv.appeal_schedule_hearing(appeal=appeal, hearing_at=datetime(2027, 1, 12, 19, 0, tzinfo=ET), place="Town Hall",
                               acting_user=personas["clerk"], send_notice=False)
    with pytest.raises(sv.ReliefError, match="notice must be sent"):
        sv.appeal_close_hearing(appeal=appeal, acting_user=personas["clerk"])
    sv.appeal_send_notice(appeal=appeal, acting_user=personas["clerk"])
    with pytest.raises(sv.ReliefError, match="cannot conclude before it is held"):
        sv.appeal_close_hearing(appeal=appeal, acting_user=personas["clerk"])


def _to_decision(appeal, personas, at):
    at(date(2026, 11, 2))
    sv.appeal_schedule_hearing(appeal=appeal, hearing_at=datetime(2027, 1, 12, 19, 0, tzinfo=ET), place="Town Hall",
                               acting_user=personas["clerk"])
    at(date(2027, 1, 12))
    sv.appeal_close_hearing(appeal=appeal, acting_user=personas["clerk"])


def test_a_reversal_names_the_sum_never_more_than_was_paid(appeal, personas, at):
    _to_decision(appeal, personas, at)
    at(date(2027, 2, 11))  # the 30th day after the hearing
    with pytest.raises(sv.ReliefError, match=r"not more than the amounts paid \(\$53.16\)"):
        sv.appeal_decide(appeal=appeal, outcome="reverse", amount=D("60.00"), findings="One unit.",
                         acting_user=personas["clerk"])
    with pytest.raises(sv.ReliefError, match="must specify the sum"):
        sv.appeal_decide(appeal=appeal, outcome="reverse", findings="One unit.", acting_user=personas["clerk"])
    with pytest.raises(sv.ReliefError, match="not a decision the Select Board can make"):
        sv.appeal_decide(appeal=appeal, outcome="grant", findings="x", acting_user=personas["clerk"])
    sv.appeal_decide(appeal=appeal, outcome="reverse", amount=D("53.16"), findings="One unit.",
                     acting_user=personas["clerk"])
    bill = appeal.case.parent.abatement.bill
    assert sum(e.amount for e in LedgerEntry.objects.filter(bill=bill, kind=EntryKind.REFUND)) == D("53.16")
    assert appeal.case.clocks.get(kind="appeal_decision").met_on == date(2027, 2, 11)


def test_an_affirmance_changes_nothing_in_the_ledger(appeal, personas, at):
    _to_decision(appeal, personas, at)
    before = LedgerEntry.objects.count()
    at(date(2027, 1, 20))
    sv.appeal_decide(appeal=appeal, outcome="affirm", findings="Two units.", acting_user=personas["clerk"])
    appeal.case.refresh_from_db()
    assert appeal.case.status == wf.AppealStatus.AFFIRMED and LedgerEntry.objects.count() == before
    assert appeal.case.parent.status == wf.AbatementStatus.DENIED


def test_a_reversed_credit_applies_prospectively_and_to_a_bill_paid_in_full_with_an_abatement_request(
        billed, policy, personas, at):
    owner, director = personas["owner"], personas["director"]
    house = billed["house"]
    bill = house_bill(billed)
    at(date(2026, 9, 20))
    payment_post(account=bill.account, amount=D("53.16"), received_on=date(2026, 9, 20), acting_user=None)
    at(date(2026, 9, 21))
    ab = sv.abatement_apply(bill=bill, grounds=["credit"], statement="The BMP credit should apply.",
                            amount_requested=D("13.29"), disposition="refund", acting_user=owner)
    bmp = CreditType.objects.get(policy=policy, code="BMP")
    app = sv.credit_apply(parcel=house, credit_type=bmp, statement="Dry well.", acting_user=owner,
                          uploads=[(t, pdf_upload(f"{t}.pdf")) for t, _ in bmp.required_documents])
    sv.credit_determine_complete(application=app, acting_user=personas["staff"])
    at(date(2026, 10, 2))
    sv.credit_decide(application=app, decision="deny", reasons="Undersized.", acting_user=director)
    sv.abatement_decide(abatement=ab, decision="deny", reasons="No credit granted.", acting_user=director)
    at(date(2026, 10, 5))
    ap = sv.appeal_file(decided_case=app.case, grounds="The dry well is sized for the roof.", acting_user=owner,
                        related_abatement=ab)
    sv.appeal_transmit_record(appeal=ap, acting_user=personas["staff"])
    sv.appeal_schedule_hearing(appeal=ap, hearing_at=datetime(2026, 11, 10, 19, tzinfo=ET), place="Town Hall",
                               acting_user=personas["clerk"])
    at(date(2026, 11, 10))
    sv.appeal_close_hearing(appeal=ap, acting_user=personas["clerk"])
    at(date(2026, 11, 20))
    with pytest.raises(sv.ReliefError, match=r"at most 50(\.0)?%"):
        sv.appeal_decide(appeal=ap, outcome="reverse", credit_percent=D("60"), findings="x",
                         acting_user=personas["clerk"])
    sv.appeal_decide(appeal=ap, outcome="reverse", credit_percent=D("25"), findings="Sized for the roof.",
                     acting_user=personas["clerk"])
    app.case.refresh_from_db()
    ap.refresh_from_db()
    assert app.case.status == wf.CreditStatus.GRANTED_ON_APPEAL
    g = app.grants.get()
    assert g.granted_by == "select_board" and g.effective_from == date(2026, 11, 20) and g.percent == D("25")
    # Paid in full and asked for an abatement: the credit also comes off that bill.
    assert ap.amount_abated == D("13.29")
    assert sum(e.amount for e in LedgerEntry.objects.filter(bill=bill, kind=EntryKind.ABATEMENT)) == D("-13.29")


def test_a_credit_appeal_without_an_abatement_request_is_prospective_only(billed, policy, personas, at):
    owner = personas["owner"]
    bmp = CreditType.objects.get(policy=policy, code="BMP")
    at(date(2026, 9, 21))
    app = sv.credit_apply(parcel=billed["house"], credit_type=bmp, statement="Dry well.", acting_user=owner,
                          uploads=[(t, pdf_upload(f"{t}.pdf")) for t, _ in bmp.required_documents])
    sv.credit_determine_complete(application=app, acting_user=personas["staff"])
    sv.credit_decide(application=app, decision="grant_part", percent=D("10"), reasons="Half the roof.",
                     acting_user=personas["director"])
    ap = sv.appeal_file(decided_case=app.case, grounds="All the roof.", acting_user=owner)
    sv.appeal_transmit_record(appeal=ap, acting_user=personas["staff"])
    sv.appeal_schedule_hearing(appeal=ap, hearing_at=datetime(2026, 10, 20, 19, tzinfo=ET), place="Town Hall",
                               acting_user=personas["clerk"])
    at(date(2026, 10, 20))
    sv.appeal_close_hearing(appeal=ap, acting_user=personas["clerk"])
    before = LedgerEntry.objects.count()
    sv.appeal_decide(appeal=ap, outcome="reverse", credit_percent=D("25"), findings="All the roof.",
                     acting_user=personas["clerk"])
    assert LedgerEntry.objects.count() == before
    grants = list(app.grants.order_by("id"))
    assert [(g.percent, g.revoked_on) for g in grants] == [(D("10"), date(2026, 10, 20)), (D("25"), None)]


# --- §16E: charges committed to the tax bill (appeals ¶B) --------------------------------------------

@pytest.fixture
def committed(billed, personas, at):
    """The house bill unpaid: demand Oct 20, committed Nov 5 (the 16th day) to the FY2027 tax bill."""
    acct = Account.objects.get(parcel=billed["house"], unit=None)
    at(date(2026, 10, 20))
    demand = demand_serve(account=acct, served_on=date(2026, 10, 20), acting_user=personas["collector"])
    at(date(2026, 11, 5))
    c = commitment_create(tax_fiscal_year=2027, committed_on=date(2026, 11, 5), demands=[demand],
                          acting_user=personas["collector"])
    return c.lines.get()


def _lien_to_decision(line, personas, at, amount="20.00"):
    bill = Bill.objects.get(account=line.account)
    at(date(2026, 12, 1))
    ap = sv.lien_abatement_apply(bill=bill, commitment_line=line, grounds="One dwelling only.",
                                 amount_requested=D(amount), acting_user=personas["owner"],
                                 assessors_copy_on=date(2026, 12, 1))
    assert [d.tag for d in ap.case.documents.all()] == ["receipt", "assessors_copy"]
    sv.appeal_transmit_record(appeal=ap, acting_user=personas["staff"])
    sv.appeal_schedule_hearing(appeal=ap, hearing_at=datetime(2027, 1, 12, 19, tzinfo=ET), place="Town Hall",
                               acting_user=personas["clerk"])
    at(date(2027, 1, 12))
    sv.appeal_close_hearing(appeal=ap, acting_user=personas["clerk"])
    return ap


def test_a_lien_abatement_denied_by_the_select_board_notifies_the_appellate_tax_board_right(committed, personas, at):
    ap = _lien_to_decision(committed, personas, at)
    at(date(2027, 1, 19))
    sv.appeal_decide(appeal=ap, outcome="deny", findings="Two units of record.", acting_user=personas["clerk"])
    ap.case.refresh_from_db()
    assert ap.case.status == wf.LienStatus.DENIED
    atb = ap.case.clocks.get(kind="atb_appeal")
    assert atb.state().due == date(2027, 4, 20)  # Apr 19, 2027 is Patriots' Day
    text = pdf_text(ap.case.documents.get(tag="decision"))
    assert "Appellate Tax Board" in text and "April 20, 2027" in text


def test_a_lien_abatement_granted_in_part_certifies_the_amount_to_the_assessors(committed, personas, at):
    ap = _lien_to_decision(committed, personas, at)
    at(date(2027, 1, 19))
    with pytest.raises(sv.ReliefError, match="what was committed"):
        sv.appeal_decide(appeal=ap, outcome="grant_part", amount=D("25.00"), findings="x",
                         acting_user=personas["clerk"])
    sv.appeal_decide(appeal=ap, outcome="grant_part", amount=D("10.00"), findings="Part.",
                     acting_user=personas["clerk"])
    assert {d.tag for d in ap.case.documents.all()} >= {"decision", "assessors_certificate"}
    assert ap.case.clocks.filter(kind="atb_appeal").exists()  # denied in part: ATB notice too


def test_a_lien_abatement_is_at_most_what_was_committed_and_on_the_same_account(committed, billed, personas, at):
    at(date(2026, 12, 1))
    other = Bill.objects.get(parcel=billed["house2"])
    with pytest.raises(sv.ReliefError, match="is not on the account"):
        sv.lien_abatement_apply(bill=other, commitment_line=committed, grounds="x", amount_requested=D("1"),
                                acting_user=personas["staff"])
    with pytest.raises(sv.ReliefError, match="what was committed"):
        sv.lien_abatement_apply(bill=Bill.objects.get(account=committed.account), commitment_line=committed,
                                grounds="x", amount_requested=committed.total + 1, acting_user=personas["staff"])



def test_a_pending_abatement_named_on_a_reversed_credit_appeal_is_not_abated_twice(billed, policy, personas, at):
    """Issue 17: the Select Board reversed the credit denial and abated the bill; the abatement application
    named on the appeal stayed pending, and granting it posted the same amount again."""
    director = personas["director"]
    bill, ab, app, ap = credit_denial_appealed_naming_an_abatement(billed, policy, personas, at)
    sv.appeal_transmit_record(appeal=ap, acting_user=personas["staff"])
    sv.appeal_schedule_hearing(appeal=ap, hearing_at=datetime(2026, 11, 10, 19, tzinfo=ET), place="Town Hall",
                               acting_user=personas["clerk"])
    at(date(2026, 11, 10))
    sv.appeal_close_hearing(appeal=ap, acting_user=personas["clerk"])
    at(date(2026, 11, 20))
    sv.appeal_decide(appeal=ap, outcome="reverse", credit_percent=D("25"), findings="Sized for the roof.",
                     acting_user=personas["clerk"])
    ab.refresh_from_db()
    ab.case.refresh_from_db()
    assert ab.case.status == wf.AbatementStatus.REVERSED_ON_APPEAL and ab.amount_granted == D("13.29")
    assert not ab.case.clocks.filter(kind="abatement_decision", met_on__isnull=True).exists()
    with pytest.raises(sv.ReliefError, match="already"):
        sv.abatement_decide(abatement=ab, decision="grant", reasons="", acting_user=director)
    assert sum(e.amount for e in LedgerEntry.objects.filter(bill=bill, kind=EntryKind.ABATEMENT)) == D("-13.29")


def test_a_credit_reversed_on_appeal_abates_only_what_the_grant_in_part_did_not(billed, policy, personas, at):
    """The abatement named on a credit appeal (appeals ¶A: paid in full "and has also requested an abatement") was
    granted in part ($5.00 of the $13.29 the credit would take off): the Board's 25 % credit brings that bill's
    relief to the credit's $13.29, so $8.29 more is abated, not the whole $13.29 again (left-alone note, issue 25)."""
    bill, ab, app, ap = credit_denial_appealed_naming_an_abatement(billed, policy, personas, at)
    at(date(2026, 10, 6))
    sv.abatement_decide(abatement=ab, decision="grant_part", amount=D("5.00"), reasons="Part of the roof drains to it.",
                        acting_user=personas["director"])
    sv.appeal_transmit_record(appeal=ap, acting_user=personas["staff"])
    sv.appeal_schedule_hearing(appeal=ap, hearing_at=datetime(2026, 11, 10, 19, tzinfo=ET), place="Town Hall",
                               acting_user=personas["clerk"])
    at(date(2026, 11, 10))
    sv.appeal_close_hearing(appeal=ap, acting_user=personas["clerk"])
    at(date(2026, 11, 20))
    sv.appeal_decide(appeal=ap, outcome="reverse", credit_percent=D("25"), findings="Sized for the roof.",
                     acting_user=personas["clerk"])
    ap.refresh_from_db()
    assert ap.amount_abated == D("8.29")
    assert sum(e.amount for e in LedgerEntry.objects.filter(bill=bill, kind=EntryKind.ABATEMENT)) == D("-13.29")
    assert "abating $8.29, with the $5.00 the Department granted in part $13.29 in all" in pdf_text(
        ap.case.documents.get(tag="decision"))
