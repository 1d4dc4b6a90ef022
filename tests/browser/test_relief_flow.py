"""Issue 5 in a real browser: an owner applies for an abatement of a paid bill, the Director denies it,
the owner appeals, staff transmit the record, the Select Board clerk sets the hearing and records a
reversal; the refund is in the ledger and every step's PDF is in the case file."""
from datetime import date
from decimal import Decimal as D

import pytest
from menuhelp import menu

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]




@pytest.fixture
def billed(town, resolution, at):
    """FY2027 billed Thu Sep 10, 2026; the owner persona's house bill is $53.16 in two installments."""
    from stormwater.utility.services import bill_run_issue, fiscal_year

    at(date(2026, 9, 10))
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    return town


@pytest.fixture(autouse=True)
def _session_cookie(settings, tmp_path):
    # Time is frozen in 2026 for the clocks; a browser-session cookie does not expire by the browser's clock.
    settings.SESSION_EXPIRE_AT_BROWSER_CLOSE = True
    settings.MEDIA_ROOT = tmp_path / "media"


def act(page, button, exact=False):
    with page.expect_navigation(timeout=15000):
        page.get_by_role("button", name=button, exact=exact).click()


def test_abatement_to_select_board_reversal_in_the_browser(page, live_server, billed, personas, at, shot, login):
    from stormwater.receivables.services import payment_post
    from stormwater.relief.models import Abatement, Appeal
    from stormwater.utility.models import Bill, EntryKind, LedgerEntry

    bill = Bill.objects.get(parcel=billed["house"])
    at(date(2026, 9, 20))
    payment_post(account=bill.account, amount=D("53.16"), received_on=date(2026, 9, 20), acting_user=None)

    at(date(2026, 10, 13))  # the last day to apply (Oct 10 rolled past the weekend and Columbus Day)
    login("owner")
    menu(page, "Credits & appeals")
    page.get_by_role("link", name="Apply for an abatement").click()
    assert "Tue, Oct 13, 2026" in page.locator("main").inner_text()
    page.get_by_label("Impervious area measured wrong").check()
    page.get_by_label("Why the billing is more likely than not in error").fill("The shed was removed in 2025.")
    page.get_by_label("Amount to abate ($)").fill("26.58")
    page.get_by_label("Amount to abate ($)").blur()
    shot("relief-01-abatement-form")
    act(page, "File the application")
    case = Abatement.objects.get().case
    assert case.number in page.locator("h1").inner_text()
    shot("relief-02-abatement-filed")

    at(date(2026, 11, 2))
    login("director")
    page.goto(f"{live_server.url}/relief/")
    shot("relief-03-queue")
    page.get_by_role("link", name=case.number).first.click()
    page.get_by_label("Decision").select_option("deny")
    page.get_by_label("Reasons").fill("The 2026 survey still shows the shed.")
    act(page, "Issue the written decision")
    assert "Denied" in page.locator("#status").inner_text()

    at(date(2026, 11, 20))
    login("owner")
    page.goto(f"{live_server.url}/relief/{case.number}/")
    page.get_by_label("Grounds of the appeal").fill("The shed is gone; photographs attached.")
    act(page, "File the appeal")
    appeal = Appeal.objects.get().case
    assert appeal.number in page.locator("h1").inner_text()

    login("staff")
    page.goto(f"{live_server.url}/relief/{appeal.number}/")
    act(page, "Transmit the record to the Select Board")

    at(date(2026, 12, 7))
    login("clerk")
    page.goto(f"{live_server.url}/relief/{appeal.number}/")
    page.get_by_label("Hearing date and time").fill("2027-01-12T19:00")
    act(page, "Set the hearing and send the notice")
    text = page.locator("main").inner_text()
    assert "Hearing scheduled" in text and "Thu, Dec 31, 2026" in text  # notice deadline rolled back
    shot("relief-04-hearing-set")

    at(date(2027, 1, 12))
    login("clerk")  # the session of Dec 7 has expired by the frozen clock
    page.goto(f"{live_server.url}/relief/{appeal.number}/")
    act(page, "Record", exact=True)
    page.get_by_label("Decision").select_option("reverse")
    page.get_by_label("Sum to abate ($, never more than was paid)").fill("26.58")
    page.get_by_label("Findings").fill("The shed was removed before the survey date.")
    act(page, "Record the written decision")
    assert "Reversed" in page.locator("#status").inner_text()
    shot("relief-05-appeal-reversed")
    assert sum(e.amount for e in LedgerEntry.objects.filter(bill=bill, kind=EntryKind.REFUND)) == D("26.58")
    tags = list(appeal.documents.filter(generated=True).values_list("tag", flat=True))
    assert tags == ["receipt", "transmittal", "hearing_notice", "decision"]
    pdf = page.request.get(f"{live_server.url}/relief/{appeal.number}/documents/"
                           f"{appeal.documents.get(tag='decision').pk}/")
    assert pdf.status == 200 and pdf.body()[:5] == b"%PDF-"


def test_a_credit_applied_for_granted_and_revoked_in_the_browser(page, live_server, billed, personas, at, shot, login):
    from stormwater.relief.models import CreditApplication
    from stormwater.relief.services import credit_policy_load_demo

    at(date(2027, 3, 1))
    credit_policy_load_demo(effective_from=date(2026, 7, 1), acting_user=personas["clerk"])
    pdf = {"mimeType": "application/pdf", "buffer": b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"}
    login("owner")
    page.goto(f"{live_server.url}/relief/credits/new/")
    page.locator("#id_credit_code").select_option("BMP")
    page.get_by_label("How the property meets the criteria").fill("Rain garden and a dry well take the roof runoff.")
    for name in ("bmp_plan", "om_plan", "inspection"):
        page.locator(f'input[name="doc_{name}"]').set_input_files({"name": f"{name}.pdf", **pdf})
    shot("relief-06-credit-form")
    act(page, "File the application")
    app = CreditApplication.objects.get()
    n = app.case.number

    login("staff")
    page.goto(f"{live_server.url}/relief/{n}/")
    act(page, "Accept as complete")
    assert "Wed, Mar 31, 2027" in page.locator("#clocks").inner_text()  # 30 days from Mar 1
    at(date(2027, 3, 20))
    login("director")
    page.goto(f"{live_server.url}/relief/{n}/")
    page.get_by_label("Decision").select_option("grant")
    act(page, "Issue the written decision")
    assert "Granted in full" in page.locator("#status").inner_text()
    shot("relief-07-credit-granted")
    page.get_by_label("Noncompliance or lapse found").fill("The rain garden was paved over.")
    act(page, "Revoke with notice")
    assert "Revoked" in page.locator("#status").inner_text()
    shot("relief-08-credit-revoked")
    tags = list(app.case.documents.filter(generated=True).values_list("tag", flat=True))
    assert tags == ["receipt", "complete", "decision", "revocation"]
