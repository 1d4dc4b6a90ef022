"""Issue 25 item 12: serving many demands gives one combined print file (the per-owner PDFs stay), made by the same
print-file mechanism as the bill run's bills (``jobs/kinds/exports.print_file``). Written failing first: 76 demands
were 76 separate PDFs and nothing to print in one go."""
import io
from datetime import date

from django.urls import reverse
from pypdf import PdfReader

from stormwater.jobs.kinds import exports as export_kinds
from stormwater.receivables.models import Demand
from stormwater.receivables.services import demand_serve
from stormwater.utility.models import Account


def test_the_demands_served_on_a_day_print_as_one_file(billed, personas, client_for, run_worker, settings,
                                                       monkeypatch):
    accounts = list(Account.objects.filter(unit=None, parcel__in=[billed["house"], billed["house2"],
                                                                  billed["shops"]]).order_by("number"))
    for a in accounts:
        demand_serve(account=a, served_on=date(2026, 11, 2), acting_user=personas["collector"])
    c = client_for(personas["collector"])
    page = c.get(reverse("demands")).content.decode()
    assert reverse("demands_print") in page and 'name="served_on"' in page
    r = c.post(reverse("demands_print"), {"served_on": "2026-11-02"})
    assert r.status_code == 302
    run_worker()
    from stormwater.jobs.models import Job

    job = Job.objects.get(kind="demands_pdf")
    assert job.state == "succeeded" and job.result["notices"] == 3 and job.file.endswith(".pdf")
    pdf = PdfReader(io.BytesIO((settings.MEDIA_ROOT / job.file).read_bytes()))
    assert len(pdf.pages) >= 3
    text = " ".join(p.extract_text() for p in pdf.pages)
    assert all(a.number in text for a in accounts)
    # the per-owner PDF of each demand stays
    d = Demand.objects.first()
    assert c.get(reverse("demand_pdf", args=[d.pk])).content[:5] == b"%PDF-"
    # past the batch size the same mechanism makes a ZIP of PDFs, as for the bills
    monkeypatch.setattr(export_kinds, "PRINT_BATCH", 2)
    c.post(reverse("demands_print"), {"served_on": "2026-11-02"})
    run_worker()
    assert Job.objects.filter(kind="demands_pdf").latest("id").file.endswith(".zip")
    # a day without demands, or not a day: refused before a job starts, the page again with the date marked
    n = Job.objects.count()
    r = c.post(reverse("demands_print"), {"served_on": "2026-11-03"})
    assert r.status_code == 400 and "no demands were served" in r.content.decode()
    r = c.post(reverse("demands_print"), {"served_on": "31/02/2026"})
    assert r.status_code == 400 and 'aria-invalid="true"' in r.content.decode() and Job.objects.count() == n
