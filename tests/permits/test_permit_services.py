"""The permit file through its services, with frozen dates: every clock of Ch. 380 § 380-10 and every
precondition a move needs."""
from datetime import date, datetime
from decimal import Decimal as D

import pytest
from django.core import mail

from stormwater.cases.services import TransitionError
from stormwater.permits import services as sv
from stormwater.permits import workflow as wf
from stormwater.permits.models import AccountEntry, ConsultantEngagement, NoticeRecipient

from .conftest import EASTERN, complete_package, pdf_upload, review_every_item

S = wf.Status


def clock(app, kind):
    c = app.case.clocks.filter(kind=kind).order_by("-id").first()
    return c.state(), c


def status(app):
    app.case.refresh_from_db()
    return app.case.status


@pytest.fixture
def filed(draft, personas, at):
    """Filed Monday 2026-03-02 with the whole package."""
    at(date(2026, 3, 2))
    complete_package(draft, personas["staff"])
    sv.permit_file(application=draft, acting_user=personas["owner"])
    return draft


@pytest.fixture
def reviewing(filed, personas, at):
    at(date(2026, 3, 6))
    sv.permit_determine_complete(application=filed, acting_user=personas["staff"])
    return filed


def test_filing_starts_the_42_day_clock_and_sends_the_notices(draft, personas, at,
                                                              django_capture_on_commit_callbacks):
    NoticeRecipient.objects.filter(key="town_clerk").update(email="clerk@longmeadow.example")
    at(date(2026, 3, 2))
    complete_package(draft, personas["staff"])
    with django_capture_on_commit_callbacks(execute=True):
        sv.permit_file(application=draft, acting_user=personas["owner"])
    assert status(draft) == S.FILED and draft.case.filed_on == date(2026, 3, 2)
    st, _ = clock(draft, wf.ACTION)
    assert st.due == date(2026, 4, 13)  # § 380-10 I(2)
    notices = {n.recipient_key for n in draft.filing_notices.all()}
    assert notices == {"town_clerk", "planning", "building", "concom"}  # wetlands → ConCom; no Planning Board
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["clerk@longmeadow.example"]
    assert mail.outbox[0].attachments[0][2] == "application/pdf"
    draft.refresh_from_db()
    assert draft.fees_total == D("2000.00") and draft.fee_schedule.is_demo  # 500 + 2 × 250 + 2 × 500


def test_the_permittee_must_own_the_site(draft, personas, town, at):
    draft.parcels.add(town["house2"])  # owned by Oscar Other
    at(date(2026, 3, 2))
    with pytest.raises(TransitionError, match="permittee must be the owner"):
        sv.permit_file(application=draft, acting_user=personas["owner"])
    assert status(draft) == S.DRAFT and not draft.case.clocks.exists()


def test_filing_needs_a_complete_package(draft, personas, at):
    at(date(2026, 3, 2))
    complete_package(draft, personas["staff"], skip={"swmp"})
    with pytest.raises(TransitionError, match="Stormwater management plan"):  # issue 30: refused at filing
        sv.permit_file(application=draft, acting_user=personas["owner"])
    assert status(draft) == S.DRAFT


def test_incomplete_stops_the_clock_until_the_items_come(draft, personas, at):
    at(date(2026, 3, 2))
    complete_package(draft, personas["staff"])
    sv.permit_file(application=draft, acting_user=personas["owner"])
    at(date(2026, 3, 5))
    sv.permit_determine_incomplete(application=draft, cure_by=date(2026, 3, 20), acting_user=personas["staff"],
                                   note="The O&M plan names no party responsible for maintenance.")
    st, _ = clock(draft, wf.ACTION)
    assert st.due is None and st.stopped_since == date(2026, 3, 5) and st.remaining_when_stopped == 40
    cure, _ = clock(draft, wf.CURE)
    assert cure.due == date(2026, 3, 20)
    assert draft.case.documents.filter(tag="incomplete_notice").exists()
    at(date(2026, 3, 16))
    sv.permit_document_upload(application=draft, upload=pdf_upload("om.pdf"), tag="om_plan",
                              acting_user=personas["owner"])
    sv.permit_items_received(application=draft, acting_user=personas["owner"])
    st, _ = clock(draft, wf.ACTION)
    assert st.tolled_days == 12 and st.unrolled_due == date(2026, 4, 25) and st.due == date(2026, 4, 27)
    _, cure_clock = clock(draft, wf.CURE)
    assert cure_clock.met_on == date(2026, 3, 16)
    sv.permit_determine_complete(application=draft, acting_user=personas["staff"])
    assert status(draft) == S.UNDER_REVIEW


def test_denial_as_administratively_incomplete_only_after_the_date(draft, personas, at):
    at(date(2026, 3, 2))
    complete_package(draft, personas["staff"])
    sv.permit_file(application=draft, acting_user=personas["owner"])
    with pytest.raises(TransitionError, match="after the determination"):
        sv.permit_determine_incomplete(application=draft, cure_by=date(2026, 3, 2), acting_user=personas["staff"],
                                       note="Plans illegible")
    at(date(2026, 3, 5))
    sv.permit_determine_incomplete(application=draft, cure_by=date(2026, 3, 20), acting_user=personas["staff"],
                                   note="Plans illegible")
    at(date(2026, 3, 20))
    with pytest.raises(TransitionError, match="only after the date"):
        sv.permit_deny_incomplete(application=draft, acting_user=personas["director"])
    at(date(2026, 3, 23))
    sv.permit_deny_incomplete(application=draft, acting_user=personas["director"])
    assert status(draft) == S.DENIED
    draft.refresh_from_db()
    assert draft.decision == "deny_incomplete"
    _, action = clock(draft, wf.ACTION)
    assert action.met_on == date(2026, 3, 23) and action.tolls.get().last == date(2026, 3, 23)


def test_an_information_request_stops_the_clock_until_the_response(reviewing, personas, at):
    at(date(2026, 3, 10))
    sv.permit_request_information(application=reviewing, items="Test pit logs\nDrawdown calculation",
                                  acting_user=personas["staff"])
    assert clock(reviewing, wf.ACTION)[0].due is None
    at(date(2026, 3, 19))
    sv.permit_information_received(application=reviewing, response="Attached", acting_user=personas["owner"])
    st, _ = clock(reviewing, wf.ACTION)
    assert st.tolled_days == 10 and st.due == date(2026, 4, 23)
    req = reviewing.info_requests.get()
    assert req.responded_on == date(2026, 3, 19) and req.document is not None


def test_extensions_are_recorded_with_their_reason(reviewing, personas, at):
    sv.permit_extend(application=reviewing, days=14, reason="Agreed with the applicant: ConCom hearing",
                     acting_user=personas["staff"])
    st, c = clock(reviewing, wf.ACTION)
    assert st.due == date(2026, 4, 27) and c.extensions.get().reason.startswith("Agreed")
    with pytest.raises(ValueError):
        sv.permit_extend(application=reviewing, days=0, reason="x", acting_user=personas["staff"])


@pytest.fixture
def consultant(reviewing, personas, at):
    at(date(2026, 3, 9))
    sv.consultant_select(application=reviewing, name="Pat Engineer", firm="Hydro LLC", degree="BSCE",
                         services="Technical review of the stormwater management plan", fee=D("4000"),
                         notice_on=date(2026, 3, 9), acting_user=personas["director"], user=personas["consultant"])
    return reviewing


def test_consultant_notice_starts_withdrawal_payment_and_appeal_clocks(consultant, personas):
    assert status(consultant) == S.CONSULTANT_FEE_DUE
    assert clock(consultant, wf.CONSULTANT_WITHDRAWAL)[0].due == date(2026, 3, 16)  # Sat 14 → Mon 16
    assert clock(consultant, wf.CONSULTANT_PAYMENT)[0].due == date(2026, 3, 23)     # 10 business days
    assert clock(consultant, wf.CONSULTANT_APPEAL_WINDOW)[0].due == date(2026, 3, 19)
    assert consultant.consultants.get().document.content_type == "application/pdf"
    from stormwater.cases.selectors import case_clocks
    standing = {cv.clock.kind: cv.standing.value for cv in case_clocks(consultant.case, today=date(2026, 3, 17))}
    assert standing[wf.CONSULTANT_WITHDRAWAL] == "lapsed" and standing[wf.CONSULTANT_PAYMENT] == "running"


def test_minimum_qualifications_for_a_consultant(reviewing, personas, at):
    at(date(2026, 3, 9))
    with pytest.raises(ValueError, match="three or more years"):
        sv.consultant_select(application=reviewing, name="X", services="s", fee=D("1"), years_of_practice=2,
                             notice_on=date(2026, 3, 9), acting_user=personas["director"])
    sv.consultant_select(application=reviewing, name="Y", services="s", fee=D("1"), years_of_practice=3,
                         notice_on=date(2026, 3, 9), acting_user=personas["director"])


def test_an_appeal_stops_the_payment_countdown_and_extends_the_action_clock(consultant, personas, at):
    at(date(2026, 3, 12))
    sv.consultant_appeal_file(application=consultant, received_on=date(2026, 3, 12), ground="conflict",
                              statement="The consultant designed the abutting project.", acting_user=personas["owner"])
    assert status(consultant) == S.CONSULTANT_APPEAL
    pay, _ = clock(consultant, wf.CONSULTANT_PAYMENT)
    assert pay.due is None and pay.remaining_when_stopped == 8  # Mar 10, 11 counted
    assert clock(consultant, wf.ACTION)[0].due is None
    at(date(2026, 3, 20))
    sv.consultant_appeal_decide(application=consultant, decided_on=date(2026, 3, 20), outcome="upheld",
                                note="No conflict shown", acting_user=personas["clerk"])
    assert status(consultant) == S.CONSULTANT_FEE_DUE
    # Resumes Mon Mar 23, the first business day after the decision: 8 more → Wed Apr 1.
    assert clock(consultant, wf.CONSULTANT_PAYMENT)[0].due == date(2026, 4, 1)
    # The action clock is extended by the appeal's duration (Mar 12–20, 9 days): Apr 13 → Apr 22.
    st = clock(consultant, wf.ACTION)[0]
    assert st.tolled_days == 9 and st.due == date(2026, 4, 22)
    at(date(2026, 4, 1))
    with pytest.raises(TransitionError, match="not overdue"):
        sv.permit_deny_nonpayment(application=consultant, acting_user=personas["director"])
    at(date(2026, 4, 2))
    sv.permit_deny_nonpayment(application=consultant, acting_user=personas["director"])
    assert status(consultant) == S.DENIED


def test_a_late_appeal_is_refused(consultant, personas, at):
    at(date(2026, 3, 20))
    with pytest.raises(TransitionError, match="within 10 days"):
        sv.consultant_appeal_file(application=consultant, received_on=date(2026, 3, 20), ground="qualifications",
                                  statement="x", acting_user=personas["owner"])
    with pytest.raises(ValueError, match="conflict of interest"):
        sv.consultant_appeal_file(application=consultant, received_on=date(2026, 3, 19), ground="too expensive",
                                  statement="x", acting_user=personas["owner"])


def test_no_denial_while_the_appeal_is_pending(consultant, personas, at):
    at(date(2026, 3, 12))
    sv.consultant_appeal_file(application=consultant, received_on=date(2026, 3, 12), ground="conflict",
                              statement="x", acting_user=personas["owner"])
    at(date(2026, 5, 1))
    with pytest.raises(TransitionError, match="may not go from"):
        sv.permit_deny_nonpayment(application=consultant, acting_user=personas["director"])


def test_a_disqualified_consultant_leaves_review_going(consultant, personas, at):
    at(date(2026, 3, 12))
    sv.consultant_appeal_file(application=consultant, received_on=date(2026, 3, 12), ground="qualifications",
                              statement="x", acting_user=personas["owner"])
    at(date(2026, 3, 17))
    sv.consultant_appeal_decide(application=consultant, decided_on=date(2026, 3, 17), outcome="disqualified",
                                note="", acting_user=personas["clerk"])
    assert status(consultant) == S.UNDER_REVIEW
    assert consultant.consultants.get().state == ConsultantEngagement.State.DISQUALIFIED
    assert clock(consultant, wf.CONSULTANT_PAYMENT)[1].met_on == date(2026, 3, 17)


def test_paying_the_fee_engages_the_consultant_and_review_goes_on(consultant, personas, at):
    at(date(2026, 3, 13))
    sv.consultant_fee_deposit(application=consultant, amount=D("1000"), on=date(2026, 3, 13), reference="R1",
                              acting_user=personas["collector"])
    assert status(consultant) == S.CONSULTANT_FEE_DUE
    sv.consultant_fee_deposit(application=consultant, amount=D("3000"), on=date(2026, 3, 13), reference="R2",
                              acting_user=personas["collector"])
    assert status(consultant) == S.UNDER_REVIEW
    assert clock(consultant, wf.CONSULTANT_PAYMENT)[1].met_on == date(2026, 3, 13)


def test_withdrawal_within_five_days_means_no_consultant_cost(consultant, personas, at):
    at(date(2026, 3, 10))
    sv.consultant_fee_deposit(application=consultant, amount=D("4000"), on=date(2026, 3, 10), reference="R",
                              acting_user=personas["collector"])
    at(date(2026, 3, 13))
    sv.permit_withdraw(application=consultant, acting_user=personas["owner"], why="changed plans")
    with pytest.raises(ValueError, match="five days"):
        sv.account_expenditure(application=consultant, amount=D("100"), on=date(2026, 3, 13), payee="Hydro LLC",
                               memo="review", acting_user=personas["director"])


def test_expenditures_only_for_an_engaged_consultant_and_never_beyond_the_balance(reviewing, personas, at):
    with pytest.raises(ValueError, match="only for consultant services"):
        sv.account_expenditure(application=reviewing, amount=D("1"), on=date(2026, 3, 6), payee="x", memo="x",
                               acting_user=personas["director"])
    at(date(2026, 3, 9))
    sv.consultant_select(application=reviewing, name="Pat", degree="PE", services="review", fee=D("500"),
                         notice_on=date(2026, 3, 9), acting_user=personas["director"])
    sv.consultant_fee_deposit(application=reviewing, amount=D("500"), on=date(2026, 3, 9), reference="R",
                              acting_user=personas["collector"])
    with pytest.raises(ValueError, match="overdraw"):
        sv.account_expenditure(application=reviewing, amount=D("500.01"), on=date(2026, 3, 9), payee="Pat",
                               memo="x", acting_user=personas["director"])


def _approve(app, personas, on):
    review_every_item(app, personas["staff"])
    return sv.permit_decide(application=app, kind="approve_conditions", findings="Meets the standards.",
                            standards=["380-11B", "380-11D"], conditions=["Silt fence before clearing"],
                            acting_user=personas["director"], on=on)


def test_a_decision_cites_standards_and_conditions(reviewing, personas, at):
    at(date(2026, 4, 10))
    with pytest.raises(TransitionError, match="cite the standards"):
        sv.permit_decide(application=reviewing, kind="approve", findings="ok", standards=[],
                         acting_user=personas["director"])
    with pytest.raises(TransitionError, match="list its conditions"):
        sv.permit_decide(application=reviewing, kind="approve_conditions", findings="ok", standards=["380-11D"],
                         acting_user=personas["director"])
    sv.waiver_request(application=reviewing, requirement="§ 380-12 A(3)(c)[3] two-foot contours",
                      justification="LIDAR at 1 ft supplied", acting_user=personas["owner"])
    with pytest.raises(TransitionError, match="Waiver requests are still open"):
        _approve(reviewing, personas, date(2026, 4, 10))
    assert status(reviewing) == S.UNDER_REVIEW


def test_approval_issues_the_permit_and_starts_the_two_year_clock(reviewing, personas, at):
    at(date(2026, 4, 10))
    _approve(reviewing, personas, date(2026, 4, 10))
    assert status(reviewing) == S.APPROVED_WITH_CONDITIONS
    reviewing.refresh_from_db()
    assert reviewing.issued_on == date(2026, 4, 10) and [c.text for c in reviewing.conditions.all()] == [
        "Silt fence before clearing"]
    assert clock(reviewing, wf.ACTION)[1].met_on == date(2026, 4, 10)
    assert clock(reviewing, wf.PROJECT_START)[0].due == date(2028, 4, 10)  # § 380-10 K
    sv.project_start_extend(application=reviewing, days=30, reason="Financing delayed", acting_user=personas["director"])
    assert clock(reviewing, wf.PROJECT_START)[0].due == date(2028, 5, 10)
    # issue 18: the start is recorded through the construction file's start checks (tests/construction/
    # test_issue18_gates.py), never directly on the permit
    with pytest.raises(TransitionError, match="construction file"):
        sv.project_start_record(application=reviewing, started_on=date(2026, 4, 10), acting_user=personas["owner"])
    assert clock(reviewing, wf.PROJECT_START)[1].met_on is None


def test_a_significant_change_needs_an_amended_application(reviewing, personas, at):
    at(date(2026, 4, 10))
    with pytest.raises(ValueError, match="Only an approved permit"):
        sv.project_change_notify(application=reviewing, notified_on=date(2026, 4, 10), description="x",
                                 acting_user=personas["owner"])
    _approve(reviewing, personas, date(2026, 4, 10))
    ch = sv.project_change_notify(application=reviewing, notified_on=date(2026, 4, 10),
                                  description="Move the basin 40 ft east", acting_user=personas["owner"])
    sv.project_change_determine(change=ch, significant=True, interim_measures="Temporary sediment trap",
                                acting_user=personas["director"])
    ch.refresh_from_db()
    amended = ch.amended_case
    assert amended.parent == reviewing.case and amended.status == S.DRAFT
    # Abutter notice is required again (§ 380-10 J): the proof item is open on the amended file.
    assert not amended.permit.checklist.get(key="abutter_notice_proof").done


def test_close_starts_the_30_day_refund_clock_and_the_refund_meets_it(reviewing, personas, at):
    at(date(2026, 3, 9))
    sv.consultant_select(application=reviewing, name="Pat", degree="PE", services="review", fee=D("4000"),
                         notice_on=date(2026, 3, 9), acting_user=personas["director"])
    sv.consultant_fee_deposit(application=reviewing, amount=D("4000"), on=date(2026, 3, 9), reference="R",
                              acting_user=personas["collector"])
    sv.account_expenditure(application=reviewing, amount=D("3250"), on=date(2026, 3, 9), payee="Pat", memo="review",
                           acting_user=personas["director"])
    at(date(2026, 4, 10))
    _approve(reviewing, personas, date(2026, 4, 10))
    with pytest.raises(ValueError, match="close the file first"):
        sv.account_refund(application=reviewing, on=date(2026, 4, 10), acting_user=personas["collector"])
    at(date(2026, 6, 5))
    sv.account_interest(application=reviewing, amount=D("4.17"), on=date(2026, 6, 5), acting_user=personas["collector"])
    sv.permit_close(application=reviewing, acting_user=personas["director"])
    assert clock(reviewing, wf.REFUND)[0].due == date(2026, 7, 6)  # Jul 5 is a Sunday
    with pytest.raises(ValueError, match="documentation"):
        sv.account_refund(application=reviewing, on=date(2026, 6, 20), payee="New Owner LLC", successor=True,
                          acting_user=personas["collector"])
    at(date(2026, 6, 20))
    e = sv.account_refund(application=reviewing, on=date(2026, 6, 20), acting_user=personas["collector"])
    assert e.amount == D("754.17") and e.payee == "Olivia Owner"
    assert clock(reviewing, wf.REFUND)[1].met_on == date(2026, 6, 20)
    assert sum((x.amount if x.kind in ("deposit", "interest") else -x.amount)
               for x in AccountEntry.objects.filter(application=reviewing)) == 0
    assert reviewing.case.documents.filter(tag="account_report").exists()


def test_waiver_needs_public_comment_and_the_findings_and_falls_if_the_applicant_objects(reviewing, personas, at):
    w = sv.waiver_request(application=reviewing, requirement="Two-foot contours", justification="1 ft LIDAR",
                          acting_user=personas["owner"])
    with pytest.raises(TransitionError, match="public comment"):
        sv.waiver_decide(waiver=w, grant=True, note="", findings=(True, True, True), acting_user=personas["director"])
    sv.waiver_public_comment(waiver=w, from_on=date(2026, 3, 6), note="with the abutter notice",
                             acting_user=personas["director"])
    with pytest.raises(TransitionError, match="public interest"):
        sv.waiver_decide(waiver=w, grant=True, note="", findings=(True, False, True), acting_user=personas["director"])
    sv.waiver_request_info(waiver=w, info="Survey certification", acting_user=personas["director"])
    sv.waiver_info_provided(waiver=w, acting_user=personas["owner"])
    sv.waiver_decide(waiver=w, grant=True, note="ok", findings=(True, True, True), acting_user=personas["director"])
    w.case.refresh_from_db()
    assert w.case.status == "granted" and w.case.closed_at is not None
    w2 = sv.waiver_request(application=reviewing, requirement="Three paper copies", justification="PDF only",
                           acting_user=personas["owner"])
    sv.waiver_request_info(waiver=w2, info="More time needed", acting_user=personas["director"])
    sv.waiver_applicant_declines(waiver=w2, reason="applicant objects to a continuance", acting_user=personas["owner"])
    w2.case.refresh_from_db()
    assert w2.case.status == "denied"
    with pytest.raises(ValueError, match="explanation"):
        sv.waiver_request(application=reviewing, requirement="x", justification=" ", acting_user=personas["owner"])


def test_rule_hearing_needs_seven_days_notice(personas):
    hearing = datetime(2026, 3, 16, 19, 0, tzinfo=EASTERN)
    with pytest.raises(ValueError, match="seven days"):
        sv.rule_hearing_create(title="Amend § 380-10 G", summary="fees", newspaper="The Republican",
                               advertised_on=date(2026, 3, 10), hearing_at=hearing, location="Town Hall",
                               acting_user=personas["director"])
    h = sv.rule_hearing_create(title="Amend § 380-10 G", summary="fees", newspaper="The Republican",
                               advertised_on=date(2026, 3, 9), hearing_at=hearing, location="Town Hall",
                               acting_user=personas["director"])
    assert h.pk


def test_abutter_list_parsing_and_mailing(draft, personas):
    n = sv.abutters_set(application=draft, certified_on=date(2026, 2, 20), acting_user=personas["owner"],
                        text="Oscar Other\n2 Oak St\nLongmeadow, MA 01106\n\nShops LLC\nPO Box 1\nSpringfield, MA 01101\n")
    assert n == 2 and [a.name for a in draft.abutters.all()] == ["Oscar Other", "Shops LLC"]
    with pytest.raises(ValueError):
        sv.abutters_set(application=draft, certified_on=date(2026, 2, 20), acting_user=personas["owner"], text="  ")
    sv.abutters_mailed(application=draft, mailed_on=date(2026, 2, 23), acting_user=personas["owner"])
    draft.refresh_from_db()
    assert draft.abutters_mailed_on == date(2026, 2, 23)


def test_abutter_notice_is_waived_where_another_board_holds_a_hearing(town, personas):
    from stormwater.permits.services import permit_application_start
    app = permit_application_start(acting_user=personas["owner"], owner_name="Olivia Owner", site_address="1 Elm",
                                   description="x", disturbance_sqft=D(50000),
                                   other_board_hearing="Planning Board (subdivision hearing)")
    item = app.checklist.get(key="abutter_notice_proof")
    assert item.done and "§ 380-10 H(3)" in item.not_applicable_reason
    assert app.checklist.get(key="autocad").done  # not drawn in AutoCAD


def test_an_additional_fee_runs_a_new_10_business_day_countdown(consultant, personas, at):
    at(date(2026, 3, 10))
    sv.consultant_fee_deposit(application=consultant, amount=D("4000"), on=date(2026, 3, 10), reference="R1",
                              acting_user=personas["collector"])
    at(date(2026, 3, 24))
    sv.consultant_additional_fee(application=consultant, amount=D("1500"), reason="Revised drainage report",
                                 on=date(2026, 3, 24), acting_user=personas["director"])
    st, pay = clock(consultant, wf.CONSULTANT_PAYMENT)
    assert st.due == date(2026, 4, 7) and pay.label.startswith("Additional")
    # The first deposit may still be spent while the additional fee is awaited.
    sv.account_expenditure(application=consultant, amount=D("2000"), on=date(2026, 3, 24), payee="Hydro LLC",
                           memo="Invoice 1", acting_user=personas["director"])
    at(date(2026, 3, 30))
    sv.consultant_fee_deposit(application=consultant, amount=D("1500"), on=date(2026, 3, 30), reference="R2",
                              acting_user=personas["collector"])
    assert clock(consultant, wf.CONSULTANT_PAYMENT)[1].met_on == date(2026, 3, 30)
    assert consultant.consultants.get().state == ConsultantEngagement.State.ENGAGED
    assert status(consultant) == S.UNDER_REVIEW
    assert consultant.case.documents.filter(tag="consultant_notice").count() == 2


def test_an_unpaid_additional_fee_is_cause_to_deny(consultant, personas, at):
    at(date(2026, 3, 10))
    sv.consultant_fee_deposit(application=consultant, amount=D("4000"), on=date(2026, 3, 10), reference="R1",
                              acting_user=personas["collector"])
    at(date(2026, 3, 24))
    sv.consultant_additional_fee(application=consultant, amount=D("1500"), reason="Revised report",
                                 on=date(2026, 3, 24), acting_user=personas["director"])
    with pytest.raises(TransitionError, match="consultant fee must be received"):
        _approve(consultant, personas, date(2026, 3, 24))
    at(date(2026, 4, 7))
    with pytest.raises(TransitionError, match="not overdue"):
        sv.permit_deny_nonpayment(application=consultant, acting_user=personas["director"])
    at(date(2026, 4, 8))
    sv.permit_deny_nonpayment(application=consultant, acting_user=personas["director"])
    assert status(consultant) == S.DENIED


# --- dates an applicant files are the server's (issue 14) ------------------------------------------------------------

def test_an_applicant_cannot_backdate_an_appeal_into_its_window(consultant, personas, at, client_for):
    at(date(2026, 3, 20))  # the 10-day appeal window closed on Thu Mar 19
    c = client_for(personas["owner"])
    r = c.post(f"/permits/{consultant.case.number}/consultant/appeal/",
               {"received_on": "2026-03-19", "ground": "conflict", "statement": "Designed the abutting project"},
               follow=True)
    assert "within 10 days" in r.content.decode()
    assert status(consultant) == S.CONSULTANT_FEE_DUE and not consultant.consultants.get().appeals.exists()
    # the Select Board's clerk records a paper appeal that arrived on time
    appeal = sv.consultant_appeal_file(application=consultant, received_on=date(2026, 3, 19), ground="conflict",
                                       statement="Mailed Mar 18", acting_user=personas["clerk"])
    assert appeal.received_on == date(2026, 3, 19) and status(consultant) == S.CONSULTANT_APPEAL


def test_an_applicants_appeal_is_received_today_without_a_date(consultant, personas, at, client_for):
    at(date(2026, 3, 12))
    r = client_for(personas["owner"]).post(f"/permits/{consultant.case.number}/consultant/appeal/",
                                           {"ground": "conflict", "statement": "x"})
    assert r.status_code == 302
    assert consultant.consultants.get().appeals.get().received_on == date(2026, 3, 12)


def test_a_permittee_cannot_backdate_a_notice_of_change(reviewing, personas, at, client_for):
    at(date(2026, 4, 10))
    _approve(reviewing, personas, date(2026, 4, 10))
    at(date(2026, 4, 20))
    r = client_for(personas["owner"]).post(f"/permits/{reviewing.case.number}/changes/",
                                           {"notified_on": "2026-04-11", "description": "Move the basin"})
    assert r.status_code == 302
    assert reviewing.changes.get().notified_on == date(2026, 4, 20)
