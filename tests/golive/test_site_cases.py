"""Go-live open cases (issue 32): O&M sites with their recorded plan and the certifications received, moved through
the stewardship domain's own acts on their real days, so the next annual certification (Ch. 380 § 380-14 C(2)(l):
each year from the recording, due on the anniversary rolled past a weekend or holiday, MGL c.4 §9) computes as if
kept here. Today is 2026-11-19 in Longmeadow (tests/golive/conftest.py)."""
from __future__ import annotations

import json
from datetime import date

import pytest
from django.core.management import call_command

from stormwater.golive.permit_cases import permits_convert
from stormwater.golive.site_cases import sites_convert
from stormwater.imports.pipeline import ImportRefused
from stormwater.notices.models import NoticeSent
from stormwater.permits.models import PermitApplication
from stormwater.rules.calendar import roll_forward
from stormwater.rules.inspections import certification_due
from stormwater.stewardship.models import AnnualCertification, OMPlan, Site
from stormwater.stewardship.selectors import certifications_overdue, final_plan_recorded, next_certification

from .conftest import write_csv

pytestmark = pytest.mark.django_db
COLS = ["Permit", "Parcel ID", "Site Name", "Plan Recorded On", "Book", "Page", "Document Number",
        "Earlier Certifications On", "Last Certification On"]


@pytest.fixture
def site_parcels(add_parcels, tmp_path, settings):
    """Two parcels with old systems (no permit here) and one permit approved in 2025 by the old office."""
    settings.MEDIA_ROOT = tmp_path / "media"
    parcels = add_parcels(3, prefix="S")
    permits_convert(path=write_csv(tmp_path / "permits.csv", ["Parcel ID", "Status", "Filed On", "Complete On",
                                                               "Decided On"],
                                   [{"Parcel ID": parcels[2].parcel_id, "Status": "approved", "Filed On": "2025-10-01",
                                     "Complete On": "2025-10-06", "Decided On": "2025-11-14"}]),
                    acting_user=None, apply=True)
    return parcels, PermitApplication.objects.get(parcels=parcels[2]).case.number


def _rows(parcels, permit):
    blank = {c: "" for c in COLS}
    return [
        # Recorded 2022-03-15, three years certified: year 4 was due 2026-03-15, a Sunday → Monday 03-16: overdue.
        {**blank, "Parcel ID": parcels[0].parcel_id, "Site Name": "Maple Court detention basin",
         "Plan Recorded On": "2022-03-15", "Book": "24511", "Page": "112",
         "Earlier Certifications On": "2023-03-10; 2024-03-14", "Last Certification On": "2025-03-12"},
        # Recorded 2024-12-02, year 1 certified 2025-11-20: year 2 due Wed 2026-12-02.
        {**blank, "Parcel ID": parcels[1].parcel_id, "Plan Recorded On": "2024-12-02", "Document Number": "2024-88812",
         "Last Certification On": "2025-11-20"},
        # The permitted project's site, recorded 2026-01-15, none certified yet: year 1 due Fri 2027-01-15.
        {**blank, "Permit": permit, "Plan Recorded On": "2026-01-15", "Book": "25010", "Page": "7"},
    ]


def test_sites_converted_with_their_certification_clocks(site_parcels, tmp_path, capsys):
    parcels, permit = site_parcels
    f = write_csv(tmp_path / "sites.csv", COLS, _rows(parcels, permit))
    dry = sites_convert(path=f, acting_user=None)
    assert dry.created == 3 and dry.dry_run and not Site.objects.exists()
    call_command("golive", "cases", str(f), "--kind", "sites", "--apply")
    out = json.loads(capsys.readouterr().out)
    assert out["created"] == 3 and len(out["cases"]) == 3

    maple = Site.objects.get(parcels=parcels[0])
    assert maple.name == "Maple Court detention basin" and maple.case.status == "in_force"
    plan = final_plan_recorded(maple)
    assert (plan.recorded_on, plan.book, plan.page) == (date(2022, 3, 15), "24511", "112")
    assert list(plan.certifications.values_list("seq", "received_on", "late")) == [
        (1, date(2023, 3, 10), False), (2, date(2024, 3, 14), False), (3, date(2025, 3, 12), False)]
    d = next_certification(plan)
    assert d.seq == 4 and d.due_on == roll_forward(certification_due(date(2022, 3, 15), 4)) == date(2026, 3, 16)
    assert [x.site for x in certifications_overdue(today=date(2026, 11, 20))] == [maple]

    second = next_certification(final_plan_recorded(Site.objects.get(parcels=parcels[1])))
    assert (second.seq, second.due_on) == (2, date(2026, 12, 2))
    permitted = Site.objects.get(permit__case__number=permit)
    first = next_certification(final_plan_recorded(permitted))
    assert (first.seq, first.due_on) == (1, date(2027, 1, 15))
    assert permitted.case.events.get(kind="opened").on == date(2026, 1, 15)
    assert not NoticeSent.objects.exists()

    again = sites_convert(path=f, acting_user=None, apply=True)
    assert again.created == 0 and again.unchanged == 3
    assert Site.objects.count() == 3 and AnnualCertification.objects.count() == 4


def test_bad_site_rows_refused_by_row_and_field_nothing_applied(site_parcels, tmp_path):
    parcels, permit = site_parcels
    bad = _rows(parcels, permit)
    bad[0]["Parcel ID"] = "99-99"
    bad[1]["Last Certification On"] = "2024-11-01"  # before the plan was recorded
    bad[2]["Plan Recorded On"] = "2025-09-01"  # before the permit was filed (§ 380-14 B): the act refuses
    bad.append({**_rows(parcels, permit)[1], "Parcel ID": parcels[1].parcel_id, "Plan Recorded On": "2025-06-02",
                "Last Certification On": "2025-11-20"})  # year 1 may be certified from 2026-05-03 only
    bad.append({**_rows(parcels, permit)[0], "Parcel ID": parcels[0].parcel_id, "Book": "", "Page": ""})
    with pytest.raises(ImportRefused) as e:
        sites_convert(path=write_csv(tmp_path / "bad.csv", COLS, bad), acting_user=None, apply=True)
    ids = e.value.problems[-1].ids
    assert any(i.startswith("row 2 (Parcel ID): no parcel '99-99'") for i in ids)
    assert any(i.startswith("row 3 (Last Certification On): dates out of order") for i in ids)
    assert any(i.startswith("row 4 (Plan Recorded On)") for i in ids)
    assert any(i.startswith("row 5 (Last Certification On)") and "12 months" in i for i in ids)
    assert any(i.startswith("row 6 (Book)") for i in ids)
    assert not Site.objects.exists() and not OMPlan.objects.exists()
