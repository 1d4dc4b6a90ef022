"""Go-live open cases (issue 32): open abatements and Select Board appeals brought in with their real dates, so their
clocks (billing ¶E: 60 days to decide; appeals ¶A: 30 days to appeal, the hearing within 90 days of the filing with
notice ≥ 10 days before, the decision within 30 days of the hearing) compute as if kept here. Today is 2026-11-19
(tests/golive/conftest.py: 2026-11-20 00:00 UTC, the evening before in Longmeadow)."""
from __future__ import annotations

import io
import json
from datetime import date
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from stormwater.cases.models import Case, Clock
from stormwater.golive.relief_cases import abatements_convert
from stormwater.imports.pipeline import ImportRefused
from stormwater.receivables.bookcheck import check_books
from stormwater.utility.models import LedgerEntry
from stormwater.relief.abatements import abatement_decide
from stormwater.relief.models import Abatement, Appeal
from stormwater.relief.selectors import bill_abatable, bill_owed

from .conftest import write_csv

pytestmark = pytest.mark.django_db
COLS = ["Parcel ID", "Bill No", "Issue Date", "Bill Amount", "Amount Requested", "Filed On", "Status", "Decided On",
        "Amount Granted", "Appeal Filed On", "Notice Sent On", "Hearing On"]


def _rows(parcels):
    blank = {c: "" for c in COLS}
    return [
        # A: pending at the DPW: its 60 days run from the filing (2026-11-30, a Monday).
        {**blank, "Parcel ID": parcels[0].parcel_id, "Bill No": "B2027-1", "Issue Date": "2026-09-10",
         "Bill Amount": "26.58", "Filed On": "2026-10-01", "Status": "filed"},
        # B: denied on 10-30: the owner's 30 days to appeal end Sun 11-29, rolled to Mon 11-30.
        {**blank, "Parcel ID": parcels[1].parcel_id, "Bill No": "B2027-2", "Issue Date": "2026-09-10",
         "Bill Amount": "132.90", "Amount Requested": "60.00", "Filed On": "2026-09-20", "Status": "Denied",
         "Decided On": "2026-10-30"},
        # C: denied, appealed on 10-20, hearing set for 12-10, notice not yet sent (due 11-30).
        {**blank, "Parcel ID": parcels[2].parcel_id, "Bill No": "B2027-3", "Issue Date": "2026-09-10",
         "Bill Amount": "26.58", "Filed On": "2026-09-15", "Status": "denied", "Decided On": "2026-10-05",
         "Appeal Filed On": "2026-10-20", "Hearing On": "2026-12-10"},
        # D: granted in part ($50 refunded by the old office), appealed, heard on 10-29: the Board's decision is due
        # 30 days after (Sat 11-28, rolled to Mon 11-30).
        {**blank, "Parcel ID": parcels[3].parcel_id, "Bill No": "B2027-4", "Issue Date": "2026-09-10",
         "Bill Amount": "132.90", "Filed On": "2026-09-12", "Status": "granted in part", "Decided On": "2026-09-25",
         "Amount Granted": "50.00", "Appeal Filed On": "2026-10-01", "Notice Sent On": "2026-10-16",
         "Hearing On": "2026-10-29"},
    ]


def _clock(case, kind):
    return Clock.objects.get(case=case, kind=kind)


def test_open_abatements_and_appeals_converted_with_their_clocks(add_parcels, resolution, tmp_path, capsys):
    parcels = add_parcels(4, prefix="R")
    rows = _rows(parcels)
    f = write_csv(tmp_path / "abatements.csv", COLS, rows)
    dry = abatements_convert(path=f, acting_user=None)
    assert dry.created == 4 and Case.objects.count() == 0
    call_command("golive", "cases", str(f), "--kind", "abatements", "--apply")
    out = json.loads(capsys.readouterr().out)
    assert out["created"] == 4 and len(out["cases"]) == 6  # four abatements, two appeals

    a = Abatement.objects.get(bill__number="CV-B2027-1")
    assert a.case.status == "filed" and a.case.filed_on == date(2026, 10, 1) and a.amount_requested == Decimal("26.58")
    c = _clock(a.case, "abatement_decision")
    assert c.start == date(2026, 10, 1) and c.state().due == date(2026, 11, 30) and c.met_on is None
    # The bill paid in full in the old system: nothing owed, all of it abatable when the DPW decides here.
    assert bill_owed(a.bill, as_of=date(2026, 11, 20)) == 0 and bill_abatable(a.bill) == Decimal("26.58")

    b = Abatement.objects.get(bill__number="CV-B2027-2")
    assert (b.case.status, b.decided_on, b.decision) == ("denied", date(2026, 10, 30), "deny")
    assert _clock(b.case, "abatement_decision").met_on == date(2026, 10, 30)
    w = _clock(b.case, "appeal_filing")
    assert w.met_on is None and w.state().due == date(2026, 11, 30)

    c_ab = Abatement.objects.get(bill__number="CV-B2027-3")
    assert _clock(c_ab.case, "appeal_filing").met_on == date(2026, 10, 20)
    ap = Appeal.objects.get(case__parent=c_ab.case)
    assert ap.case.status == "hearing_scheduled" and ap.case.filed_on == date(2026, 10, 20)
    assert ap.record_transmitted_on == date(2026, 10, 20) and ap.bill == c_ab.bill and ap.subject == "abatement"
    # 90 days from 10-20 is Mon 2027-01-18, Martin Luther King Jr. Day: rolled to the 19th.
    assert _clock(ap.case, "appeal_hearing_latest").state().due == date(2027, 1, 19)
    notice = _clock(ap.case, "hearing_notice_latest")
    assert notice.met_on is None and notice.state().due == date(2026, 11, 30)

    d = Abatement.objects.get(bill__number="CV-B2027-4")
    assert (d.case.status, d.amount_granted) == ("granted_part", Decimal("50.00"))
    assert bill_abatable(d.bill) == Decimal("82.90")  # what the old office abated is not abatable again
    ap = Appeal.objects.get(case__parent=d.case)
    assert ap.case.status == "hearing_closed" and ap.hearing_closed_on == date(2026, 10, 29)
    assert ap.notice_sent_on == date(2026, 10, 16)
    assert _clock(ap.case, "appeal_hearing_latest").met_on == date(2026, 10, 29)
    decision = _clock(ap.case, "appeal_decision")
    assert decision.start == date(2026, 10, 29) and decision.state().due == date(2026, 11, 30)
    assert list(ap.case.events.filter(kind="status").values_list("to_status", "on")) == [
        ("record_transmitted", date(2026, 10, 1)), ("hearing_scheduled", date(2026, 10, 16)),
        ("hearing_closed", date(2026, 10, 29))]

    # Re-running changes nothing.
    again = abatements_convert(path=f, acting_user=None, apply=True)
    assert again.created == 0 and again.unchanged == 4 and Case.objects.count() == 6

    # The case goes on here: the DPW grants A in full, refunding what the owner paid in the old system.
    abatement_decide(abatement=a, decision="grant", reasons="", acting_user=None)
    a.refresh_from_db()
    assert a.case.status == "granted" and _clock(a.case, "abatement_decision").met_on == timezone.localdate()
    assert LedgerEntry.objects.get(bill=a.bill, kind="refund").amount == Decimal("26.58")
    assert bill_abatable(a.bill) == 0 and bill_owed(a.bill, as_of=date(2026, 11, 20)) == 0
    # The books' invariants hold over the converted paid bills, the part abated there and the refund here.
    report = check_books(as_of=timezone.localdate())
    assert report.clean, [b.as_json() for b in report.breaks]


def test_bad_rows_refused_by_row_and_field_nothing_applied(add_parcels, resolution, tmp_path):
    parcels = add_parcels(4, prefix="R")
    bad = _rows(parcels)
    bad[0]["Parcel ID"] = "99-99"
    bad[0]["Filed On"] = "2026-10-20"  # more than 30 days after the issue (10-13 with the roll): billing ¶E
    bad[1]["Status"] = "filed"  # not decided, yet …
    bad[1]["Appeal Filed On"] = "2026-11-02"  # … appealed: the workflow cannot reach it
    bad[2]["Decided On"] = "2026-09-01"  # before the filing
    bad[3]["Hearing On"] = "2027-01-15"  # more than 90 days after the appeal's filing (appeals ¶A)
    bad.append({**bad[0], "Parcel ID": parcels[0].parcel_id, "Bill No": "B2027-9", "Filed On": "2026-09-20",
                "Status": "granted"})  # decided in full: closed, not an open case
    # An account this system already bills for FY2027 under another number: one bill an account and year (¶B).
    from stormwater.utility.models import Account, Bill, BillRun

    acct = Account.objects.create(number=f"SW-{parcels[1].parcel_id}", parcel=parcels[1])
    run = BillRun.objects.create(period_label="FY2027", period_start=date(2026, 7, 1), period_end=date(2027, 6, 30),
                                 issue_date=date(2026, 9, 10), resolution=resolution, state="issued")
    Bill.objects.create(number="2027-0001", run=run, account=acct, parcel=parcels[1], period_start=date(2026, 7, 1),
                        period_end=date(2027, 6, 30), issue_date=date(2026, 9, 10), amount=Decimal("26.58"),
                        gross_fee=Decimal("26.58"), property_class="residential", impervious_sqft=0, erus=0,
                        blocks=[])
    bad.append({**_rows(parcels)[1], "Bill No": "B2027-8"})
    with pytest.raises(ImportRefused) as e:
        abatements_convert(path=write_csv(tmp_path / "bad.csv", COLS, bad), acting_user=None, apply=True)
    ids = e.value.problems[-1].ids
    assert any(i.startswith("row 2 (Parcel ID): no parcel") for i in ids)
    assert any(i.startswith("row 2 (Filed On)") and "30 days" in i for i in ids)
    assert any(i.startswith("row 3 (Appeal Filed On)") for i in ids)
    assert any(i.startswith("row 4 (Decided On): dates out of order") for i in ids)
    assert any(i.startswith("row 5 (Hearing On)") and "90 days" in i for i in ids)
    assert any(i.startswith("row 6 (Status)") for i in ids)
    assert any(i.startswith("row 7 (Bill No): account") and "2027-0001" in i for i in ids)
    assert Case.objects.count() == 0 and not Abatement.objects.exists()
    # The command: exit 1 (CommandError) with every refused row and field on stderr.
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command("golive", "cases", str(tmp_path / "bad.csv"), "--kind", "abatements", "--apply", stderr=err)
    assert "row 2 (Parcel ID): no parcel" in err.getvalue() and "row 6 (Status)" in err.getvalue()
    assert not Abatement.objects.exists()
