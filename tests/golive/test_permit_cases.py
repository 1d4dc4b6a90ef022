"""Go-live open cases (issue 32): permits by status with their filed, complete and decision dates and tolls, moved
through the permits domain's own acts on their real days, so the 42-day action clock (§ 380-10 I(2)), its tolls while
incomplete or waiting on information (§ 380-10 D, E) and the two years to start (§ 380-10 K) compute as if kept here.
Today is 2026-11-19 in Longmeadow (tests/golive/conftest.py)."""
from __future__ import annotations

import json
from datetime import date

import pytest
from django.core.management import call_command

from stormwater.cases.models import Case, Clock
from stormwater.golive.permit_cases import permits_convert
from stormwater.imports.pipeline import ImportRefused
from stormwater.notices.models import NoticeSent
from stormwater.permits.models import NoticeRecipient, PermitApplication

from .conftest import write_csv

pytestmark = pytest.mark.django_db
COLS = ["Parcel ID", "Status", "Filed On", "Incomplete On", "Cure By", "Items Received On", "Complete On",
        "Info Requested On", "Info Received On", "Decided On", "Disturbance Sqft", "Conditions"]


def _rows(parcels):
    blank = {c: "" for c in COLS}
    return [
        # P1: filed on 11-02: 42 days to act, Mon 12-14.
        {**blank, "Parcel ID": parcels[0].parcel_id, "Status": "filed", "Filed On": "2026-11-02",
         "Disturbance Sqft": "12000"},
        # P2: found incomplete on 10-05, items due 11-30: the action clock stands still.
        {**blank, "Parcel ID": parcels[1].parcel_id, "Status": "Incomplete", "Filed On": "2026-10-01",
         "Incomplete On": "2026-10-05", "Cure By": "2026-11-30", "Disturbance Sqft": "8000"},
        # P3: incomplete 10-16 to 10-26 (11 days tolled), complete 10-28: due 42 counted days after 10-15, 12-07.
        {**blank, "Parcel ID": parcels[2].parcel_id, "Status": "under review", "Filed On": "2026-10-15",
         "Incomplete On": "2026-10-16", "Cure By": "2026-10-30", "Items Received On": "2026-10-26",
         "Complete On": "2026-10-28", "Disturbance Sqft": "45000"},
        # P4: approved with conditions on 07-10 after an information request: the project starts by 2028-07-10.
        {**blank, "Parcel ID": parcels[3].parcel_id, "Status": "approved_conditions", "Filed On": "2026-06-01",
         "Complete On": "2026-06-10", "Info Requested On": "2026-06-20", "Info Received On": "2026-07-01",
         "Decided On": "2026-07-10", "Disturbance Sqft": "60000", "Conditions": "Silt fence before any grading"},
    ]


def _app(parcel) -> PermitApplication:
    return PermitApplication.objects.get(parcels=parcel)


def test_permits_converted_through_their_acts_on_their_days(add_parcels, tmp_path, capsys):
    NoticeRecipient.objects.update_or_create(key="town_clerk", defaults={"name": "Town Clerk",
                                                                         "email": "clerk@example.org"})
    parcels = add_parcels(4, prefix="P")
    f = write_csv(tmp_path / "permits.csv", COLS, _rows(parcels))
    # A dry run converts and rolls back (one row: the acts render their letters, a second each here).
    dry = permits_convert(path=write_csv(tmp_path / "one.csv", COLS, _rows(parcels)[:1]), acting_user=None)
    assert dry.created == 1 and dry.dry_run and not PermitApplication.objects.exists()
    call_command("golive", "cases", str(f), "--kind", "permits", "--apply")
    out = json.loads(capsys.readouterr().out)
    assert out["created"] == 4 and len(out["cases"]) == 4
    # The filing notices (§ 380-10 F) went from the old office: none is sent again.
    assert not NoticeSent.objects.exists()  # nor any letter e-mailed

    p1 = _app(parcels[0])
    assert p1.case.status == "filed" and p1.case.filed_on == date(2026, 11, 2)
    assert Clock.objects.get(case=p1.case, kind="action").state().due == date(2026, 12, 14)

    p2 = _app(parcels[1]).case
    action = Clock.objects.get(case=p2, kind="action")
    st = action.state()
    assert p2.status == "incomplete" and st.due is None and st.stopped_since == date(2026, 10, 5)
    assert Clock.objects.get(case=p2, kind="cure").state().due == date(2026, 11, 30)

    p3 = _app(parcels[2]).case
    assert p3.status == "under_review"
    assert list(p3.events.filter(kind="status").values_list("to_status", "on")) == [
        ("filed", date(2026, 10, 15)), ("incomplete", date(2026, 10, 16)), ("filed", date(2026, 10, 26)),
        ("under_review", date(2026, 10, 28))]
    st = Clock.objects.get(case=p3, kind="action").state()
    assert st.tolled_days == 11 and st.due == date(2026, 12, 7)

    p4 = _app(parcels[3])
    assert p4.case.status == "approved_conditions" and p4.decided_on == date(2026, 7, 10)
    assert list(p4.conditions.values_list("text", flat=True)) == ["Silt fence before any grading"]
    action = Clock.objects.get(case=p4.case, kind="action")
    assert action.met_on == date(2026, 7, 10) and action.state().tolled_days == 12  # 06-20 … 07-01
    assert Clock.objects.get(case=p4.case, kind="project_start").state().due == date(2028, 7, 10)

    # Re-running changes nothing.
    again = permits_convert(path=f, acting_user=None, apply=True)
    assert again.created == 0 and again.unchanged == 4 and Case.objects.filter(kind="permit").count() == 4


def test_bad_permit_rows_refused_by_row_and_field_nothing_applied(add_parcels, tmp_path):
    parcels = add_parcels(4, prefix="P")
    bad = _rows(parcels)
    bad[0]["Parcel ID"] = "99-99"
    bad[1]["Status"] = "issued"  # not a status of the permit workflow
    bad[2]["Complete On"] = "2026-10-10"  # before the filing
    bad[3]["Conditions"] = ""  # approved with conditions, none listed: the act refuses (§ 380-10 I(1)(b))
    bad.append({**_rows(parcels)[2], "Parcel ID": parcels[0].parcel_id, "Items Received On": ""})  # incomplete,
    # never cured, yet complete: the workflow cannot reach it
    with pytest.raises(ImportRefused) as e:
        permits_convert(path=write_csv(tmp_path / "bad.csv", COLS, bad), acting_user=None, apply=True)
    ids = e.value.problems[-1].ids
    assert any(i.startswith("row 2 (Parcel ID): no parcel") for i in ids)
    assert any(i.startswith("row 3 (Status): 'issued'") for i in ids)
    assert any(i.startswith("row 4 (Complete On): dates out of order") for i in ids)
    assert any(i.startswith("row 5 (Conditions)") for i in ids)
    assert any(i.startswith("row 6 (Items Received On)") for i in ids)
    assert not PermitApplication.objects.exists() and not Case.objects.exists()
