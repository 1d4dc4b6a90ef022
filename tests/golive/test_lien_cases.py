"""Go-live open cases (issue 32): §16E abatements of charges committed to the tax lien (MGL c.83 §16E; Ch. 295 Art. IV
appeals ¶B), brought in with ``golive cases --kind abatements`` on rows whose ``subject`` is ``lien``, through the
relief domain's own acts (``relief.liens``, ``relief.appeals``) on their real days, so the hearing (within 90 days of
the filing, noticed ≥ 10 days before), the Board's 30 days to decide and the owner's three months to the Appellate Tax
Board compute as if kept here. Today is 2026-11-19 in Longmeadow (tests/golive/conftest.py)."""
from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

import pytest
from django.core.management import call_command

from stormwater.cases.models import Case, Clock
from stormwater.golive.balances import balances_convert
from stormwater.golive.relief_cases import abatements_convert
from stormwater.imports.pipeline import ImportRefused
from stormwater.notices.models import NoticeSent
from stormwater.relief.models import Appeal
from stormwater.rules.interest import simple_interest

from .conftest import money, write_csv

pytestmark = pytest.mark.django_db
BAL = ["Account", "Parcel ID", "Bill No", "Inst", "FY", "Issue Date", "Due Date", "Principal", "Interest",
       "Demand Charge", "Demand Date", "Lien Amount", "Lien Date"]
COLS = ["Subject", "Parcel ID", "Bill No", "Filed On", "Status", "Amount Requested", "Assessors Copy On",
        "Hearing On", "Hearing Place", "Notice Sent On", "Decided On", "Amount Granted"]
LIEN_DAY = date(2026, 5, 1)


@pytest.fixture
def committed(add_parcels, resolution, tmp_path):
    """Three FY2026 bills committed to the tax lien on 2026-05-01 in the old system, converted (golive balances)."""
    parcels = add_parcels(4, prefix="L")
    rows, principal, interest = [], Decimal(0), Decimal(0)
    for i, p in enumerate(parcels[:3]):
        pr = Decimal("132.90")
        it, _ = simple_interest(unpaid_principal=pr, due_date=date(2025, 10, 10), as_of=LIEN_DAY)
        principal, interest = principal + pr, interest + it
        rows.append({"Account": f"SW-{p.parcel_id}", "Parcel ID": p.parcel_id, "Bill No": f"L2026-{i}", "Inst": 1,
                     "FY": "FY2026", "Issue Date": "2025-09-10", "Due Date": "2025-10-10", "Principal": money(pr),
                     "Interest": money(it), "Demand Charge": "25.00", "Demand Date": "2026-03-02",
                     "Lien Amount": money(pr + it + 25), "Lien Date": LIEN_DAY.isoformat()})
    control = write_csv(tmp_path / "control.csv", ["fiscal_year", "principal", "interest", "demand", "liens",
                                                   "credits", "accounts"],
                        [{"fiscal_year": "FY2026", "principal": money(principal), "interest": money(interest),
                          "demand": "75.00", "liens": money(principal + interest + 75), "credits": "0.00",
                          "accounts": 3}])
    balances_convert(path=write_csv(tmp_path / "open.csv", BAL, rows), as_of=date(2026, 10, 30),
                     control_path=control, apply=True, acting_user=None)
    parcels[0].owner.email = "owner0@example.org"  # an owner with an address: nothing is e-mailed to it
    parcels[0].owner.save(update_fields=["email"])
    return parcels


def _rows(parcels):
    blank = {c: "" for c in COLS}
    return [
        # L1: filed 10-15 with the copy to the Assessors on the 16th: the hearing within 90 days, by Wed 2027-01-13.
        {**blank, "Subject": "lien", "Parcel ID": parcels[0].parcel_id, "Bill No": "L2026-0", "Filed On": "2026-10-15",
         "Status": "filed", "Amount Requested": "60.00", "Assessors Copy On": "2026-10-16"},
        # L2: filed 10-01, hearing set for 12-10 at 7 pm, notice not yet sent: due 10 days before, Mon 11-30.
        {**blank, "Subject": "§16E", "Parcel ID": parcels[1].parcel_id, "Bill No": "L2026-1", "Filed On": "2026-10-01",
         "Status": "hearing scheduled", "Hearing On": "2026-12-10 19:00", "Hearing Place": "Town Hall"},
        # L3: filed 08-03, noticed 09-03, heard 09-17, granted in part on 10-08: the Appellate Tax Board by 2027-01-08.
        {**blank, "Subject": "lien", "Parcel ID": parcels[2].parcel_id, "Bill No": "L2026-2", "Filed On": "2026-08-03",
         "Status": "granted in part", "Amount Requested": "100.00", "Hearing On": "2026-09-17 19:00",
         "Hearing Place": "Town Hall", "Notice Sent On": "2026-09-03", "Decided On": "2026-10-08",
         "Amount Granted": "40.00"},
    ]


def _clock(case, kind):
    return Clock.objects.get(case=case, kind=kind)


def test_lien_abatements_converted_through_the_acts_on_their_days(committed, tmp_path, capsys):
    f = write_csv(tmp_path / "liens.csv", COLS, _rows(committed))
    before = Case.objects.count()
    # A dry run converts and rolls back (one row: the acts render their letters, a fraction of a second each).
    dry = abatements_convert(path=write_csv(tmp_path / "one.csv", COLS, _rows(committed)[:1]), acting_user=None)
    assert dry.created == 1 and dry.dry_run and Case.objects.count() == before
    call_command("golive", "cases", str(f), "--kind", "abatements", "--apply")
    out = json.loads(capsys.readouterr().out)
    assert out["created"] == 3 and len(out["cases"]) == 3 and all(n.startswith("SWL-") for n in out["cases"])

    a1 = Appeal.objects.get(bill__number="CV-L2026-0")
    assert (a1.subject, a1.case.kind, a1.case.status) == ("lien", "lien_abatement", "filed")
    assert a1.case.filed_on == date(2026, 10, 15) and a1.assessors_copy_on == date(2026, 10, 16)
    assert a1.amount_requested == Decimal("60.00") and a1.commitment_line.commitment.committed_on == LIEN_DAY
    assert _clock(a1.case, "appeal_hearing_latest").state().due == date(2027, 1, 13)
    # The relief act's letters are kept in the file with their old dates (the receipt, the Assessors' copy) …
    assert set(a1.case.documents.values_list("tag", flat=True)) == {"receipt", "assessors_copy"}
    # … and e-mailed to nobody: the owner was told by the old office.
    assert not NoticeSent.objects.exists()

    a2 = Appeal.objects.get(bill__number="CV-L2026-1")
    assert a2.case.status == "hearing_scheduled" and a2.record_transmitted_on == date(2026, 10, 1)
    assert a2.amount_requested == a2.commitment_line.total  # the whole committed sum when not given
    notice = _clock(a2.case, "hearing_notice_latest")
    assert notice.met_on is None and notice.state().due == date(2026, 11, 30)

    a3 = Appeal.objects.get(bill__number="CV-L2026-2")
    assert (a3.case.status, a3.outcome, a3.amount_abated) == ("granted_part", "grant_part", Decimal("40.00"))
    assert a3.notice_sent_on == date(2026, 9, 3) and a3.hearing_closed_on == date(2026, 9, 17)
    assert _clock(a3.case, "appeal_decision").met_on == date(2026, 10, 8)
    assert _clock(a3.case, "atb_appeal").state().due == date(2027, 1, 8)
    assert list(a3.case.events.filter(kind="status").values_list("to_status", "on")) == [
        ("record_transmitted", date(2026, 8, 3)), ("hearing_scheduled", date(2026, 9, 3)),
        ("hearing_closed", date(2026, 9, 17)), ("granted_part", date(2026, 10, 8))]

    again = abatements_convert(path=f, acting_user=None, apply=True)
    assert again.created == 0 and again.unchanged == 3


def test_bad_lien_rows_refused_by_row_and_field_nothing_applied(committed, tmp_path):
    bad = _rows(committed)
    bad[0]["Bill No"] = "NOPE-1"  # no bill here committed to the lien
    bad[1]["Amount Requested"] = "9999.00"  # more than was committed: the act refuses it
    bad[2]["Notice Sent On"] = ""  # heard without notice: the act refuses to close the hearing
    bad.append({**_rows(committed)[1], "Parcel ID": committed[3].parcel_id, "Bill No": "L2026-1"})  # another account
    bad.append({**_rows(committed)[0], "Status": "granted"})  # granted in full: closed, not converted
    before = Case.objects.count()
    with pytest.raises(ImportRefused) as e:
        abatements_convert(path=write_csv(tmp_path / "bad.csv", COLS, bad), acting_user=None, apply=True)
    ids = e.value.problems[-1].ids
    assert any(i.startswith("row 2 (Bill No)") and "committed" in i for i in ids), ids
    assert any(i.startswith("row 3 (Amount Requested)") for i in ids), ids
    assert any(i.startswith("row 4 (Notice Sent On)") for i in ids), ids
    assert any(i.startswith("row 5 (Bill No)") for i in ids), ids
    assert any(i.startswith("row 6 (Status)") for i in ids), ids
    assert Case.objects.count() == before and not Appeal.objects.exists()
