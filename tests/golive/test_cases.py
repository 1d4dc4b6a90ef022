"""Go-live open cases (issue 32), as far as built: credits in force with their real dates."""
from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

import pytest
from django.core.management import call_command

from stormwater.cases.models import Case, Clock
from stormwater.golive.cases import credits_convert
from stormwater.imports.pipeline import ImportRefused
from stormwater.relief.models import CreditGrant
from stormwater.relief.selectors import grants_in_force

from .conftest import write_csv

pytestmark = pytest.mark.django_db
COLS = ["Parcel ID", "Credit Type", "Percent", "Filed On", "Accepted On", "Granted On", "Recertify By"]


@pytest.fixture
def policy(personas):
    from stormwater.relief.services import credit_policy_load_demo

    return credit_policy_load_demo(effective_from=date(2020, 7, 1), acting_user=personas["director"])


def test_credits_in_force_converted_with_their_dates(add_parcels, policy, tmp_path, capsys):
    parcels = add_parcels(8, prefix="C")
    rows = [{"Parcel ID": p.parcel_id, "Credit Type": "BMP" if i % 2 else "PROTECTED",
             "Percent": "50" if i % 2 else "20", "Filed On": "2024-02-01", "Accepted On": "2024-02-10",
             "Granted On": "2024-03-04", "Recertify By": "" if i else "2026-12-31"} for i, p in enumerate(parcels)]
    rows[3]["Percent"] = "25"  # granted in part
    f = write_csv(tmp_path / "credits.csv", COLS, rows)
    dry = credits_convert(path=f, acting_user=None)
    assert dry.created == 8 and CreditGrant.objects.count() == 0
    call_command("golive", "cases", str(f), "--apply")
    out = json.loads(capsys.readouterr().out)
    assert out["created"] == 8 and len(out["cases"]) == 8
    assert grants_in_force(on=date(2026, 11, 20)).count() == 8
    g = CreditGrant.objects.get(parcel=parcels[1])
    assert (g.percent, g.effective_from, g.recertify_by) == (Decimal("50"), date(2024, 3, 4), date(2027, 3, 4))
    case = g.application.case
    assert case.status == "granted" and case.filed_on == date(2024, 2, 1)
    assert list(case.events.filter(kind="status").values_list("on", flat=True)) == [date(2024, 2, 10),
                                                                                   date(2024, 3, 4)]
    clock = Clock.objects.get(case=case, kind="recertification")
    assert clock.start == date(2024, 3, 4) and clock.state().due == date(2027, 3, 4)
    assert Clock.objects.get(case=CreditGrant.objects.get(parcel=parcels[0]).application.case,
                             kind="recertification").state().due == date(2026, 12, 31)
    assert CreditGrant.objects.get(parcel=parcels[3]).application.case.status == "granted_part"
    # Re-running changes nothing.
    again = credits_convert(path=f, acting_user=None, apply=True)
    assert again.created == 0 and again.unchanged == 8 and Case.objects.count() == 8
    # Bad rows: by row and field, nothing converted.
    bad = [dict(r) for r in rows]
    bad[0]["Parcel ID"] = "99-99"
    bad[1]["Percent"] = "60"
    bad[2]["Accepted On"] = "2024-04-01"
    bad[4]["Credit Type"] = "NOPE"
    with pytest.raises(ImportRefused) as e:
        credits_convert(path=write_csv(tmp_path / "bad.csv", COLS, bad), acting_user=None, apply=True)
    ids = e.value.problems[-1].ids
    assert any(i.startswith("row 2 (Parcel ID): no parcel") for i in ids)
    assert any(i.startswith("row 3 (Percent): '60'") for i in ids)
    assert any(i.startswith("row 4 (Accepted On): dates out of order") for i in ids)
    assert any(i.startswith("row 6 (Credit Type): no credit type 'NOPE'") for i in ids)
    assert Case.objects.count() == 8


ACOLS = ["Parcel ID", "Credit Type", "Percent", "Status", "Filed On", "Accepted On", "Decided On",
         "Appeal Filed On", "Notice Sent On", "Hearing On"]


def test_credit_denials_and_their_appeals_converted_with_their_clocks(add_parcels, policy, tmp_path):
    """appeals ¶A: a credit denied in whole or in part by the old office, its owner's 30 days to appeal, and the appeal
    before the Select Board with its hearing clocks (today is 2026-11-19 in Longmeadow)."""
    from stormwater.relief.models import Appeal, CreditApplication

    parcels = add_parcels(3, prefix="D")
    blank = {c: "" for c in ACOLS}
    rows = [
        # Granted in part (30% of the 50% cap) on 10-01, appealed 10-20, hearing set for 12-10 (notice due 11-30).
        {**blank, "Parcel ID": parcels[0].parcel_id, "Credit Type": "BMP", "Percent": "30", "Filed On": "2026-09-01",
         "Accepted On": "2026-09-10", "Decided On": "2026-10-01", "Appeal Filed On": "2026-10-20",
         "Hearing On": "2026-12-10"},
        # Denied on 11-02: the owner may appeal through Wed 12-02.
        {**blank, "Parcel ID": parcels[1].parcel_id, "Credit Type": "PROTECTED", "Percent": "20", "Status": "denied",
         "Filed On": "2026-10-01", "Accepted On": "2026-10-05", "Decided On": "2026-11-02"},
    ]
    f = write_csv(tmp_path / "credits.csv", ACOLS, rows)
    res = credits_convert(path=f, acting_user=None, apply=True)
    assert res.created == 2 and len(res.cases) == 3
    part = CreditGrant.objects.get(parcel=parcels[0])
    assert part.percent == Decimal("30") and part.application.case.status == "granted_part"
    assert Clock.objects.get(case=part.application.case, kind="appeal_filing").met_on == date(2026, 10, 20)
    ap = Appeal.objects.get(case__parent=part.application.case)
    assert (ap.subject, ap.case.status, ap.decision_date) == ("credit", "hearing_scheduled", date(2026, 10, 1))
    assert Clock.objects.get(case=ap.case, kind="appeal_hearing_latest").state().due == date(2027, 1, 19)
    assert Clock.objects.get(case=ap.case, kind="hearing_notice_latest").state().due == date(2026, 11, 30)
    denied = CreditApplication.objects.get(parcel=parcels[1])
    assert (denied.case.status, denied.decision, denied.decided_on) == ("denied", "deny", date(2026, 11, 2))
    assert not CreditGrant.objects.filter(parcel=parcels[1]).exists()
    window = Clock.objects.get(case=denied.case, kind="appeal_filing")
    assert window.met_on is None and window.state().due == date(2026, 12, 2)
    again = credits_convert(path=f, acting_user=None, apply=True)
    assert again.created == 0 and again.unchanged == 2 and Case.objects.count() == 3
    # An appeal of a grant in full, or filed after the 30 days: refused by row and field, nothing converted.
    bad = [dict(r) for r in rows]
    bad[0].update({"Parcel ID": parcels[2].parcel_id, "Percent": "50"})
    bad[1].update({"Parcel ID": parcels[2].parcel_id, "Appeal Filed On": "2026-11-19", "Decided On": "2026-10-01",
                   "Accepted On": "2026-09-20", "Filed On": "2026-09-15"})
    with pytest.raises(ImportRefused) as e:
        credits_convert(path=write_csv(tmp_path / "bad.csv", ACOLS, bad), acting_user=None, apply=True)
    ids = e.value.problems[-1].ids
    assert any(i.startswith("row 2 (Appeal Filed On): an appeal lies only from") for i in ids)
    assert any(i.startswith("row 3 (Appeal Filed On)") and "30 days" in i for i in ids)
    assert Case.objects.count() == 3
