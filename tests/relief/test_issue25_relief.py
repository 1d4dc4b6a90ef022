"""Issue 25 ("Books the town can stake its name on"), relief:

- The Select Board reverses a credit denial whatever became of the abatement named on the appeal (Ch. 295 Art. IV
  appeals ¶A: "If reversing the denial of a credit, the decision shall specify the credit to be applied
  prospectively against future charges unless the property owner has paid the full amount … and has also requested
  an abatement"). Before, an abatement the Department had granted in full (or one withdrawn) made the decision fail
  ("A abatement case may not go from “Granted in full” to “Abated by the Select Board on appeal”") and the credit
  was not granted at all.
- A recertification due on a Sunday is due on the Monday (MGL c.4 §9): the owner's page shows Monday as the last
  day, and the credit is not revoked as lapsed on that Monday (credits ¶C).
"""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal as D
from zoneinfo import ZoneInfo

import pytest

from stormwater.relief import services as sv
from stormwater.relief import workflow as wf
from stormwater.relief.models import CreditType
from stormwater.utility.models import Bill, EntryKind, LedgerEntry
from stormwater.utility.services import bill_run_issue, fiscal_year

from .conftest import credit_denial_appealed_naming_an_abatement, pdf_text, pdf_upload

ET = ZoneInfo("America/New_York")



def _credit_appeal_with_abatement(billed, policy, personas, at, *, abatement_then: str):
    """The owner pays the house bill in full, applies for its abatement ($13.29, the BMP credit's 25 %) and for the
    BMP credit; the Director denies the credit on Fri Oct 2, 2026; then the abatement is ``abatement_then``
    ("granted": granted in full by the Director; "withdrawn": withdrawn by the owner); the owner appeals the credit
    denial naming the abatement, and the Select Board hears it on Nov 10."""
    owner, director = personas["owner"], personas["director"]
    bill, ab, app, ap = credit_denial_appealed_naming_an_abatement(billed, policy, personas, at)
    if abatement_then == "granted":
        sv.abatement_decide(abatement=ab, decision="grant", reasons="", acting_user=director)
    else:
        sv.relief_withdraw(case=ab.case, acting_user=owner, why="The appeal will settle it.")
    sv.appeal_transmit_record(appeal=ap, acting_user=personas["staff"])
    sv.appeal_schedule_hearing(appeal=ap, hearing_at=datetime(2026, 11, 10, 19, tzinfo=ET), place="Town Hall",
                               acting_user=personas["clerk"])
    at(date(2026, 11, 10))
    sv.appeal_close_hearing(appeal=ap, acting_user=personas["clerk"])
    return app, ab, ap, bill


@pytest.mark.parametrize("abatement_then, status, abated", [
    ("granted", wf.AbatementStatus.GRANTED, D("-13.29")),    # the Department abated the $13.29 asked for
    ("withdrawn", wf.AbatementStatus.WITHDRAWN, D("0")),     # no request stands: prospective only
])
def test_the_select_board_reverses_a_credit_denial_whatever_became_of_the_named_abatement(
        billed, policy, personas, at, abatement_then, status, abated):
    app, ab, ap, bill = _credit_appeal_with_abatement(billed, policy, personas, at, abatement_then=abatement_then)
    at(date(2026, 11, 20))
    sv.appeal_decide(appeal=ap, outcome="reverse", credit_percent=D("25"), findings="Sized for the roof.",
                     acting_user=personas["clerk"])
    app.case.refresh_from_db()
    ab.case.refresh_from_db()
    ap.refresh_from_db()
    assert ap.case.status == wf.AppealStatus.REVERSED
    assert app.case.status == wf.CreditStatus.GRANTED_ON_APPEAL
    g = app.grants.get()
    assert (g.percent, g.effective_from, g.granted_by) == (D("25"), date(2026, 11, 20), "select_board")
    # The named abatement keeps its own decision and is not abated again on top of it.
    assert ab.case.status == status
    assert sum((e.amount for e in LedgerEntry.objects.filter(bill=bill, kind=EntryKind.ABATEMENT)), D(0)) == abated
    assert not ap.amount_abated
    letter = pdf_text(ap.case.documents.get(tag="decision"))
    assert "REVERSES the denial and grants a credit of 25" in letter
    assert ab.case.number in letter
    # The credit applies to the next bill: FY2028's house bill is 75 % of $53.16.
    at(date(2027, 9, 10))
    label, start, end = fiscal_year(2028)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2027, 9, 10),
                   acting_user=None)
    nxt = Bill.objects.get(parcel=billed["house"], period_start=start)
    assert (nxt.credit_percent, nxt.amount) == (D("25"), D("39.87"))


@pytest.mark.parametrize("granted_on, sunday, last_day", [
    (date(2026, 9, 23), date(2029, 9, 23), date(2029, 9, 24)),  # Sun Sep 23, 2029 → Mon Sep 24
    (date(2026, 10, 7), date(2029, 10, 7), date(2029, 10, 9)),  # Sun Oct 7 → Mon Oct 8 is Columbus Day → Tue Oct 9
])
def test_a_recertification_due_on_a_sunday_is_not_lapsed_on_the_owners_last_day(
        billed, policy, personas, at, client_for, granted_on, sunday, last_day):
    owner, director = personas["owner"], personas["director"]
    bmp = CreditType.objects.get(policy=policy, code="BMP")  # recertified every 36 months
    at(granted_on)
    app = sv.credit_apply(parcel=billed["house"], credit_type=bmp, statement="Dry well.", acting_user=owner,
                          uploads=[(t, pdf_upload(f"{t}.pdf")) for t, _ in bmp.required_documents])
    sv.credit_determine_complete(application=app, acting_user=personas["staff"])
    sv.credit_decide(application=app, decision="grant", reasons="", acting_user=director)
    g = app.grants.get()
    assert g.recertify_by == sunday and sunday.weekday() == 6
    # The owner's page: the clock and the credit both say the rolled day is the last day.
    at(last_day)
    page = client_for(owner).get(f"/relief/{app.case.number}/").content.decode()
    shown = f"{last_day:%b} {last_day.day}, {last_day.year}"
    assert shown in page
    grants = page[page.index('id="grants"'):page.index('id="clocks"')]
    assert shown in grants and f"{sunday:%b} {sunday.day}, {sunday.year}" not in grants
    body = client_for(owner).get(f"/api/relief/{app.case.number}/").json()
    assert body["grants"][0]["recertify_due"] == str(last_day)
    # The decision letter names the same day.
    letter = pdf_text(app.case.documents.get(tag="decision"))
    assert f"Recertification is due by {last_day:%B} {last_day.day}, {last_day.year}" in letter
    # On that day the credit has not lapsed: only noncompliance could revoke it.
    with pytest.raises(sv.ReliefError, match=f"due by {last_day}: it has not lapsed"):
        sv.credit_revoke(grant=g, lapsed=True, reason="No recertification.", acting_user=director)
    g.refresh_from_db()
    assert g.revoked_on is None
    app.case.refresh_from_db()
    assert app.case.status == wf.CreditStatus.GRANTED
    # The day after, it has.
    at(date.fromordinal(last_day.toordinal() + 1))
    sv.credit_revoke(grant=g, lapsed=True, reason="No recertification received.", acting_user=director)
    g.refresh_from_db()
    assert g.revoked_on == date.fromordinal(last_day.toordinal() + 1)
    assert str(last_day) in g.revoke_reason
