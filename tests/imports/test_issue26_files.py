"""Issue 26 "Every file a town sends: a cut, mis-formatted or wrong-place file changes nothing and says why" — the
assessor, water/sewer and GIS files (each written failing first). Payment files: tests/receivables/
test_issue26_payment_files.py. Nothing in the database changes: tests/dbunchanged.py."""
from __future__ import annotations

import pytest
from dbunchanged import nothing_changed
from django.core.management import CommandError, call_command

from stormwater.parcels.models import Parcel

pytestmark = pytest.mark.django_db


def test_a_water_sewer_file_cut_inside_its_last_account_changes_nothing(assessed, tmp_path):
    Parcel.objects.filter(parcel_id="P-3").update(water_sewer_account="W000011")
    f = tmp_path / "accounts.csv"
    f.write_text("parcel_id,water_sewer_account\nP-1,W000101\nP-2,W000102\nP-3,W000")  # W000011 cut
    with nothing_changed(), pytest.raises(CommandError, match=r"accounts.csv: row 4 \(water_sewer_account\).*cut off"):
        call_command("imports", "water-sewer", str(f))
    assert Parcel.objects.get(parcel_id="P-3").water_sewer_account == "W000011"
