"""The parallel run (issue 32): the first bill run after go-live against the old system's bill register."""
from __future__ import annotations

import json
from datetime import date

import pytest
from django.core.management import call_command

from stormwater.imports.pipeline import ImportRefused
from stormwater.utility.models import Account, Bill
from stormwater.utility.services import bill_run_issue, fiscal_year

from .conftest import write_csv

pytestmark = pytest.mark.django_db


def test_first_bill_run_proofed_against_the_old_register(town, resolution, tmp_path, capsys):
    label, start, end = fiscal_year(2027)
    run = bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                         acting_user=None).run
    bills = list(Bill.objects.filter(run=run).select_related("account", "parcel"))
    assert len(bills) >= 4
    rows = [{"Account": b.account.number, "Parcel ID": "", "Amount": f"{b.amount:.2f}", "Bill No": f"OLD-{i}"}
            for i, b in enumerate(bills)]
    rows[0]["Amount"] = f"{bills[0].amount + 12:.2f}"          # the old system billed $12 more
    del rows[1]                                                  # only here
    road = Account.objects.create(number="SW-09-01-1", parcel=town["road"])
    rows.append({"Account": "", "Parcel ID": "09-01-1", "Amount": "40.00", "Bill No": "OLD-R"})  # only in the old
    reg = write_csv(tmp_path / "register.csv", ["Account", "Parcel ID", "Amount", "Bill No"], rows)
    call_command("golive", "parallel", str(run.pk), str(reg))
    out = json.loads(capsys.readouterr().out)
    kinds = [(d["kind"], d["parcel_id"], d["difference"]) for d in out["differences"]]
    assert kinds == [("differs", bills[0].parcel.parcel_id, "-12.00"),
                     ("only_here", bills[1].parcel.parcel_id, f"{bills[1].amount:.2f}"),
                     ("only_old", road.parcel.parcel_id, "-40.00")]
    assert out["same"] == len(bills) - 2
    rows.append({"Account": "SW-NOPE", "Parcel ID": "", "Amount": "1", "Bill No": ""})
    reg = write_csv(tmp_path / "register.csv", ["Account", "Parcel ID", "Amount", "Bill No"], rows)
    from stormwater.golive.parallel import parallel_run

    with pytest.raises(ImportRefused, match=r"row \d+ \(Account\): SW-NOPE"):
        parallel_run(run=run, path=reg)
