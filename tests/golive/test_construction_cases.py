"""Go-live open cases (issue 32): construction files with the last inspection, moved through the construction
domain's own acts on their real days, so the erosion-control schedule (Ch. 380 § 380-16 C(4)(b)[1]: before the start,
then the EPA 2022 CGP Part 4 frequency) computes the next inspection due as if the file had been kept here.
Today is 2026-11-19 in Longmeadow (tests/golive/conftest.py)."""
from __future__ import annotations

import json
from datetime import date, timedelta

import pytest
from django.core.management import call_command

from stormwater.construction.models import ConstructionProject, Inspection
from stormwater.construction.selectors import next_due
from stormwater.golive.construction_cases import construction_convert
from stormwater.golive.permit_cases import permits_convert
from stormwater.imports.pipeline import ImportRefused
from stormwater.notices.models import NoticeSent
from stormwater.permits.models import PermitApplication

from .conftest import write_csv

pytestmark = pytest.mark.django_db
PERMIT_COLS = ["Parcel ID", "Status", "Filed On", "Complete On", "Decided On", "Disturbance Sqft"]
COLS = ["Permit", "Opened On", "Meeting On", "Pre Start Inspection On", "Started On", "Last Inspection On",
        "Last Inspection Kind", "Last Inspection Result", "Corrective Steps", "Frequency", "Sensitive Waters"]


@pytest.fixture
def permits(add_parcels, tmp_path, settings):
    """Three permits approved by the old office (05-01, 06-01, 07-01), converted first (docs/golive.md order)."""
    settings.MEDIA_ROOT = tmp_path / "media"
    parcels = add_parcels(3, prefix="C")
    rows = [{"Parcel ID": p.parcel_id, "Status": "approved", "Filed On": f"2026-0{3 + i}-02",
             "Complete On": f"2026-0{3 + i}-06", "Decided On": f"2026-0{5 + i}-01", "Disturbance Sqft": "60000"}
            for i, p in enumerate(parcels)]
    permits_convert(path=write_csv(tmp_path / "permits.csv", PERMIT_COLS, rows), acting_user=None, apply=True)
    return [PermitApplication.objects.get(parcels=p).case.number for p in parcels]


def _rows(numbers):
    blank = {c: "" for c in COLS}
    return [
        # A: started 05-11 after the pre-start inspection; every 7 days (CGP 4.2(a)): last 11-16 → due 11-23.
        {**blank, "Permit": numbers[0], "Opened On": "2026-05-04", "Meeting On": "2026-05-06",
         "Pre Start Inspection On": "2026-05-10", "Started On": "2026-05-11", "Last Inspection On": "2026-11-16",
         "Last Inspection Kind": "routine", "Frequency": "7day"},
        # B: 14 days and storms (CGP 4.2(b)), last routine 11-10 with violations → due 11-24.
        {**blank, "Permit": numbers[1], "Opened On": "2026-06-03", "Pre Start Inspection On": "2026-06-10",
         "Started On": "2026-06-12", "Last Inspection On": "2026-11-10", "Last Inspection Result": "violations",
         "Corrective Steps": "Repair the silt fence at the east swale", "Frequency": "14 days and storms"},
        # C: not started; its inspection before the start on 11-18, sensitive waters (CGP 4.3.1: 7 days) → 11-25.
        {**blank, "Permit": numbers[2], "Opened On": "2026-07-06", "Last Inspection On": "2026-11-18",
         "Last Inspection Kind": "pre start", "Frequency": "14day_storm", "Sensitive Waters": "yes"},
    ]


def _project(number) -> ConstructionProject:
    return ConstructionProject.objects.get(permit__case__number=number)


def test_construction_files_converted_with_their_clocks(permits, personas, tmp_path, capsys):
    personas["director"].email = "director@example.org"  # reports go to the Director (§ 380-16 C(4)(f)[1]) …
    personas["director"].save(update_fields=["email"])
    f = write_csv(tmp_path / "construction.csv", COLS, _rows(permits))
    # A dry run converts and rolls back (one row: each report renders its PDF).
    dry = construction_convert(path=write_csv(tmp_path / "one.csv", COLS, _rows(permits)[2:]), acting_user=None)
    assert dry.created == 1 and dry.dry_run and not ConstructionProject.objects.exists()
    call_command("golive", "cases", str(f), "--kind", "construction", "--apply")
    out = json.loads(capsys.readouterr().out)
    assert out["created"] == 3 and len(out["cases"]) == 3

    a = _project(permits[0])
    assert a.case.status == "active" and a.started_on == date(2026, 5, 11)
    assert a.permit.started_on == date(2026, 5, 11)  # § 380-10 K: the two years to start met on the start
    assert a.meetings.get().held_on == date(2026, 5, 6)
    assert [(i.kind, i.inspected_at.date()) for i in a.inspections.all()] == [
        ("erosion_pre_start", date(2026, 5, 10)), ("erosion_routine", date(2026, 11, 16))]
    assert a.inspections.last().last_inspection_on == date(2026, 5, 10)  # [d] the date of the last inspection
    assert next_due(a).due_on == date(2026, 11, 16) + timedelta(days=7)
    events = list(a.case.events.filter(kind="status").values_list("to_status", "on"))
    assert events == [("active", date(2026, 5, 11))]
    assert a.case.events.get(kind="opened").on == date(2026, 5, 4)

    b = _project(permits[1])
    assert b.case.status == "active" and b.inspections.last().evaluation == "violations"
    assert next_due(b).due_on == date(2026, 11, 24)

    c = _project(permits[2])
    assert c.case.status == "preconstruction" and c.started_on is None and c.sensitive_waters
    assert next_due(c).due_on == date(2026, 11, 25)
    # … but these went from the old office: nothing is e-mailed again.
    assert not NoticeSent.objects.exists()

    again = construction_convert(path=f, acting_user=None, apply=True)
    assert again.created == 0 and again.unchanged == 3
    assert ConstructionProject.objects.count() == 3 and Inspection.objects.count() == 5


def test_bad_construction_rows_refused_by_row_and_field_nothing_applied(permits, add_parcels, tmp_path):
    filed = add_parcels(1, prefix="F")[0]  # a permit still under the old office's review: no construction yet
    permits_convert(path=write_csv(tmp_path / "filed.csv", PERMIT_COLS, [
        {"Parcel ID": filed.parcel_id, "Status": "filed", "Filed On": "2026-10-01", "Complete On": "", "Decided On": "",
         "Disturbance Sqft": "50000"}]), acting_user=None, apply=True)
    bad = _rows(permits)
    bad[0]["Permit"] = "SWP-2026-9999"
    bad[1]["Started On"] = "2026-06-05"  # before its inspection before the start (§ 380-16 C(4)(b)[1])
    bad[2].update({"Started On": "2026-07-10", "Pre Start Inspection On": "2026-07-08",
                   "Last Inspection On": "2026-07-09", "Last Inspection Kind": "routine"})  # before the start
    bad.append({**_rows(permits)[0], "Permit": permits[0], "Opened On": "2026-04-20"})  # before the permit
    bad.append({**_rows(permits)[2], "Permit": PermitApplication.objects.get(parcels=filed).case.number,
                "Opened On": "2026-10-05"})  # the act refuses: oversight begins with an approved permit
    with pytest.raises(ImportRefused) as e:
        construction_convert(path=write_csv(tmp_path / "bad.csv", COLS, bad), acting_user=None, apply=True)
    ids = e.value.problems[-1].ids
    assert any(i.startswith("row 2 (Permit): no permit 'SWP-2026-9999'") for i in ids)
    assert any(i.startswith("row 3 (Started On): dates out of order") for i in ids)
    assert any(i.startswith("row 4 (Last Inspection On)") and "before the start" in i for i in ids)
    assert any(i.startswith("row 5 (Opened On)") for i in ids)
    assert any(i.startswith("row 6 (Permit): Construction oversight begins with an approved permit") for i in ids)
    assert not ConstructionProject.objects.exists() and not Inspection.objects.exists()
