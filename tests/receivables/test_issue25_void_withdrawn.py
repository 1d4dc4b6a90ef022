"""Issue 25 item 6: a voided bill run leaked. Its print file stayed downloadable with no VOID mark, and every owner's
ledger showed the voided charge, the reversal and the Director's internal reason word for word. Now the print file
of a voided run is withdrawn (410, saying why), a voided bill's PDF says VOID across the page, owners read
"Withdrawn by the Town" on their ledger, and staff still see everything."""
from __future__ import annotations

import re
import subprocess

from stormwater.jobs.models import Job
from stormwater.utility.models import Account, BillRun
from stormwater.utility.services import bill_run_void

REASON = "Typo by Bob in the ERU table, Dana caught it"


def _void(billed, personas):
    run = BillRun.objects.get()
    bill_run_void(run=run, reason=REASON, acting_user=personas["director"])
    return run


def test_an_owner_reads_withdrawn_by_the_town_and_never_the_internal_reason(billed, personas, client_for):
    _void(billed, personas)
    a = Account.objects.get(parcel=billed["house"], unit=None)
    page = client_for(personas["owner"]).get(f"/accounts/{a.number}/").content.decode()
    assert REASON not in page and "Void of bill run" not in page
    assert "Withdrawn by the Town" in page
    staff = client_for(personas["collector"]).get(f"/accounts/{a.number}/").content.decode()
    assert REASON in staff  # staff still see everything


def test_a_voided_runs_print_file_is_withdrawn_and_its_bills_say_void(billed, personas, client_for, settings,
                                                                      tmp_path):
    settings.MEDIA_ROOT = str(tmp_path)
    run = BillRun.objects.get()
    (tmp_path / "jobs" / "1").mkdir(parents=True)
    (tmp_path / "jobs" / "1" / "bills.pdf").write_bytes(b"%PDF-1.7 the print file")
    job = Job.objects.create(kind="bills_pdf", title="Print file", params={"run": run.pk}, state="done",
                             subject=f"utility.billrun:{run.pk}", file="jobs/1/bills.pdf")
    c = client_for(personas["director"])
    assert c.get(f"/jobs/{job.pk}/file").status_code == 200
    _void(billed, personas)
    r = c.get(f"/jobs/{job.pk}/file")
    assert r.status_code == 410 and b"%PDF" not in r.content
    assert "voided" in r.content.decode() and "must not be printed" in r.content.decode()
    from stormwater.utility.models import Bill
    bill = Bill.all_objects.filter(run=run).first()
    pdf = c.get(f"/bills/{bill.number}/pdf/").content
    text = re.sub(r"\s+", " ", subprocess.run(["pdftotext", "-", "-"], input=pdf, capture_output=True,
                                              check=True).stdout.decode())
    assert "VOID" in text and "withdrawn by the town" in text.lower()
