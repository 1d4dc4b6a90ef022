"""Go-live open permit files (issue 32) with an outside consultant and its special account (MGL c.44 §53G; Ch. 380
§ 380-10 G(2)), a waiver requested or granted (§ 380-8) and an extension of the action clock (§ 380-10 I(2)), each
through the permits domain's own acts on its real day, so the clocks and the account's balance are as if kept here.
Today is 2026-11-19 in Longmeadow (tests/golive/conftest.py)."""
from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

import pytest
from django.core.management import call_command

from stormwater.cases.models import Case, Clock
from stormwater.golive.permit_cases import permits_convert
from stormwater.imports.pipeline import ImportRefused
from stormwater.permits.models import AccountEntry, PermitApplication, Waiver
from stormwater.permits.selectors import account_balance_of

from .conftest import write_csv

pytestmark = pytest.mark.django_db
COLS = ["Parcel ID", "Status", "Filed On", "Complete On", "Consultant Name", "Consultant Degree", "Consultant Fee",
        "Consultant Notice On", "Consultant Paid On", "Account Interest", "Account Interest On", "Account Expended",
        "Account Expended On", "Account Payee", "Extended On", "Extension Days", "Extension Reason",
        "Waiver Requirement", "Waiver Justification", "Waiver Requested On", "Waiver Comment From", "Waiver Status",
        "Waiver Decided On"]


def _rows(parcels):
    blank = {c: "" for c in COLS}
    return [
        # C1: under review with its consultant engaged: the fee of $3,000 requested 10-07 and paid 10-14, interest
        # of $1.25 credited 11-02, $1,200 paid to the consultant 11-10: the account holds $1,801.25. The action clock
        # (42 days from 10-01: 11-12) was extended by 10 days on 11-06: Sun 11-22, rolled to Mon 11-23.
        {**blank, "Parcel ID": parcels[0].parcel_id, "Status": "under review", "Filed On": "2026-10-01",
         "Complete On": "2026-10-05", "Consultant Name": "Ann Engineer", "Consultant Degree": "PE",
         "Consultant Fee": "3000.00", "Consultant Notice On": "2026-10-07", "Consultant Paid On": "2026-10-14",
         "Account Interest": "1.25", "Account Interest On": "2026-11-02", "Account Expended": "1200.00",
         "Account Expended On": "2026-11-10", "Account Payee": "Engineer & Co.", "Extended On": "2026-11-06",
         "Extension Days": "10", "Extension Reason": "consultant review (§ 380-10 I(2))"},
        # C2: the consultant's fee requested 11-09 and not yet paid: due in 10 business days (Veterans Day skipped),
        # 11-24; a waiver requested 11-04, pending.
        {**blank, "Parcel ID": parcels[1].parcel_id, "Status": "consultant fee due", "Filed On": "2026-11-02",
         "Complete On": "2026-11-04", "Consultant Name": "Bo Reviewer", "Consultant Degree": "MS Civil Eng.",
         "Consultant Fee": "1500.00", "Consultant Notice On": "2026-11-09", "Waiver Requirement": "§ 380-7 recharge",
         "Waiver Justification": "clay soils", "Waiver Requested On": "2026-11-04"},
        # C3: a waiver requested 09-03, open to public comment from 09-10, granted 09-24.
        {**blank, "Parcel ID": parcels[2].parcel_id, "Status": "under review", "Filed On": "2026-09-01",
         "Complete On": "2026-09-03", "Waiver Requirement": "§ 380-7 B(2) setback",
         "Waiver Justification": "existing wall", "Waiver Requested On": "2026-09-03",
         "Waiver Comment From": "2026-09-10", "Waiver Status": "granted", "Waiver Decided On": "2026-09-24"},
    ]


def _app(parcel) -> PermitApplication:
    return PermitApplication.objects.get(parcels=parcel)


def test_consultant_account_waivers_and_extensions_converted_on_their_days(add_parcels, tmp_path, capsys):
    parcels = add_parcels(3, prefix="Q")
    f = write_csv(tmp_path / "permits.csv", COLS, _rows(parcels))
    call_command("golive", "cases", str(f), "--kind", "permits", "--apply")
    out = json.loads(capsys.readouterr().out)
    assert out["created"] == 3

    c1 = _app(parcels[0])
    assert c1.case.status == "under_review"
    eng = c1.consultants.get()
    assert (eng.name, eng.fee, eng.notice_on, eng.paid_on, eng.state) == (
        "Ann Engineer", Decimal("3000.00"), date(2026, 10, 7), date(2026, 10, 14), "engaged")
    assert list(AccountEntry.objects.filter(application=c1).order_by("on").values_list("kind", "amount", "on")) == [
        ("deposit", Decimal("3000.00"), date(2026, 10, 14)), ("interest", Decimal("1.25"), date(2026, 11, 2)),
        ("expenditure", Decimal("1200.00"), date(2026, 11, 10))]
    assert account_balance_of(c1) == Decimal("1801.25")
    assert Clock.objects.get(case=c1.case, kind="consultant_payment").met_on == date(2026, 10, 14)
    action = Clock.objects.get(case=c1.case, kind="action")
    assert action.state().extended_by == 10 and action.state().due == date(2026, 11, 23)
    ext = c1.case.events.get(kind="clock.extend")
    assert ext.on == date(2026, 11, 6)
    assert list(c1.case.events.filter(kind="status").values_list("to_status", "on")) == [
        ("filed", date(2026, 10, 1)), ("under_review", date(2026, 10, 5)), ("consultant_fee_due", date(2026, 10, 7)),
        ("under_review", date(2026, 10, 14))]

    c2 = _app(parcels[1])
    assert c2.case.status == "consultant_fee_due" and account_balance_of(c2) == 0
    pay = Clock.objects.get(case=c2.case, kind="consultant_payment")
    assert pay.met_on is None and pay.state().due == date(2026, 11, 24)
    w2 = Waiver.objects.get(application=c2)
    assert w2.case.status == "requested" and w2.case.filed_on == date(2026, 11, 4)

    w3 = Waiver.objects.get(application=_app(parcels[2]))
    assert (w3.case.status, w3.public_comment_from) == ("granted", date(2026, 9, 10))
    assert list(w3.case.events.filter(kind="status").values_list("to_status", "on")) == [("granted", date(2026, 9, 24))]

    again = permits_convert(path=f, acting_user=None, apply=True)
    assert again.created == 0 and again.unchanged == 3 and Case.objects.filter(kind="waiver").count() == 2


def test_bad_consultant_waiver_extension_rows_refused_nothing_applied(add_parcels, tmp_path):
    parcels = add_parcels(3, prefix="Q")
    bad = _rows(parcels)
    bad[0]["Account Expended"] = "5000.00"  # more than the account holds: the act refuses (MGL c.44 §53G)
    bad[0]["Extension Reason"] = ""  # an extension without its reason
    bad[1]["Consultant Notice On"] = "2026-11-03"  # before the file was complete: the workflow refuses
    bad[2]["Waiver Comment From"] = ""  # granted without public comment: the act refuses (§ 380-8 C)
    with pytest.raises(ImportRefused) as e:
        permits_convert(path=write_csv(tmp_path / "bad.csv", COLS, bad), acting_user=None, apply=True)
    ids = e.value.problems[-1].ids
    assert any(i.startswith("row 2 (Extension Reason)") for i in ids), ids
    assert any(i.startswith("row 3 (Consultant Notice On)") for i in ids), ids
    assert any(i.startswith("row 4 (Waiver Comment From)") for i in ids), ids
    bad[0]["Extension Reason"] = "consultant review"
    with pytest.raises(ImportRefused) as e:
        permits_convert(path=write_csv(tmp_path / "bad2.csv", COLS, bad[:1]), acting_user=None, apply=True)
    assert any(i.startswith("row 2 (Account Expended)") for i in e.value.problems[-1].ids), e.value.problems[-1].ids
    assert not PermitApplication.objects.exists() and not Case.objects.exists()
