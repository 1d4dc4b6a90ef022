"""Give the demo town rows in the tables the later slices added, through their own services, so that the
backup round trip (test_backup.py) has something to carry in each (run in the installation's environment:
``python town_more.py``; the demo_town fixture then runs ``stormwater token issue`` and ``stormwater worker
--batch`` on it as an administrator would):

- accounts (issue 14, people): the Collector enrolled in two-factor sign-in — a confirmed TOTP device
  (django-otp ``otp_totp_totpdevice``) and ten recovery codes (``otp_static_staticdevice``/``statictoken``)
  (not the Director, whom tests/ops/test_serve.py signs in with the demo password alone);
- jobs (issue 15): two bill-run exports started by the Director — queued here (``jobs_job`` and the queue
  library's ``django_tasks_database_dbtaskresult``); the worker then runs them (log lines, progress, the
  files under media/jobs/);
- notices: the outbox already holds the demo's e-mailed notices with their PDF attachments (demo_load);
- review (engineering): the engineering review of docs/examples/commercial-5-acre.yaml (``review_review``, its
  report and hydrograph data);
- workqueue (issue 16): the Inspector's iCalendar feed key (``workqueue_calendarfeed``);
- construction (issue 18): the demo owner's draft permit filed, approved with conditions, a construction file
  opened on it, a site control, and a field inspection report with two photos (case documents, thumbnails under
  media/) and a drawn signature (a case document) — ``construction_*`` tables and the case file's uploads.
"""
from __future__ import annotations

import io
import os
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

def _image(fmt: str, size: tuple[int, int], mode: str = "RGB") -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new(mode, size, (40, 120, 70)).save(buf, fmt)
    return buf.getvalue()


def _construction(users: dict, on: date) -> None:
    """The demo owner's draft permit through approval (as tests/construction/conftest.py does), then the field."""
    from django.core.files.uploadedfile import SimpleUploadedFile as Upload
    from django.utils import timezone

    from stormwater.construction import services as cs
    from stormwater.construction.reporting import RowInput, SignatureInput
    from stormwater.permits import services as sv
    from stormwater.workbench import catalog
    from stormwater.workbench.services import item_findings_record
    from stormwater.permits.checklist import ITEMS
    from stormwater.permits.models import PermitApplication

    app = PermitApplication.objects.filter(owner__user=users["owner"]).order_by("pk").first()
    pdf = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
    for item in ITEMS:
        if app.checklist.get(key=item.key).done:
            continue
        if item.by_upload:
            sv.permit_document_upload(application=app, upload=Upload(f"{item.key}.pdf", pdf, "application/pdf"),
                                      tag=item.key, acting_user=users["staff"])
        elif item.key == "fees":  # paid at the counter before filing (issue 30)
            sv.permit_fees_paid(application=app, paid_on=on, receipt="DPW-1", acting_user=users["staff"])
        else:
            sv.checklist_confirm(application=app, key=item.key, acting_user=users["staff"], note="demo")
    sv.permit_file(application=app, acting_user=users["owner"])
    sv.permit_determine_complete(application=app, acting_user=users["staff"])
    item_findings_record(application=app, acting_user=users["staff"],  # every item reviewed (issue 30's one gate)
                         findings=[{"para": e.para, "finding": "provided"} for e in catalog.ITEMS])
    sv.permit_decide(application=app, kind="approve_conditions", findings="Meets the standards.",
                     standards=["380-11B", "380-11D"], conditions=["Silt fence before clearing"],
                     acting_user=users["director"], on=on)
    app.refresh_from_db()
    project = cs.project_open(permit=app, acting_user=users["director"], design_engineer=users["consultant"],
                              design_engineer_name="Dana Engineer", design_engineer_pe="MA PE 45678",
                              esc_inspector=users["inspector"], esc_inspector_name="Ivy Inspector",
                              esc_inspector_credentials="CPESC #1234", frequency="14day_storm")
    fence = cs.site_control_add(project=project, kind="perimeter", name="Silt fence along the brook",
                                location="east edge", acting_user=users["inspector"])
    report = cs.ReportInput(
        kind="erosion_pre_start", inspected_at=timezone.now() - timedelta(hours=1), location="whole site",
        inspector_name="Ivy Inspector", inspector_credentials="CPESC #1234", last_inspection="none",
        weather="Overcast", precipitation_24h_in=Decimal("0.00"), evaluation="compliant",
        rows=(RowInput(control_id=fence.pk, condition="needs_maintenance", note="Fence sagging at the outlet",
                       photos=(Upload("fence.jpg", _image("JPEG", (640, 480)), "image/jpeg"),)),),
        photos=(Upload("overview.jpg", _image("JPEG", (320, 240)), "image/jpeg"),),
        signature=SignatureInput(method="drawn", name="Ivy Inspector",
                                 image=Upload("sig.png", _image("PNG", (300, 100), "RGBA"), "image/png")),
        client_key="7d0e8c55-0f0a-4a51-9a8c-0b7e2f9a1c11")
    cs.inspection_report_file(project=project, report=report, acting_user=users["inspector"])


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stormwater.settings")
    import django

    django.setup()

    from django_otp.oath import totp

    from stormwater.accounts.models import User
    from stormwater.accounts.twofactor import totp_device_confirm, totp_device_pending
    from stormwater.jobs.services import job_start
    from stormwater.utility.models import BillRun

    director, collector = User.objects.get(username="director"), User.objects.get(username="collector")
    device = totp_device_pending(user=collector)
    code = f"{totp(device.bin_key, step=device.step, t0=device.t0, digits=device.digits):06d}"
    totp_device_confirm(user=collector, token=code, acting_user=collector)
    run = BillRun.objects.order_by("pk").first()
    for fmt in ("csv", "xlsx"):
        job_start(kind="bill_run_export", params={"run": run.pk, "format": fmt}, acting_user=director)

    users = {u.username: u for u in User.objects.all()}
    from stormwater.review.services import review_run
    from stormwater.workqueue.services import calendar_feed_issue

    example = Path(__file__).resolve().parents[2] / "docs" / "examples" / "commercial-5-acre.yaml"
    review_run(input_text=example.read_text(), acting_user=users["staff"], input_name=example.name,
               title="Commercial site, 5 acres")
    calendar_feed_issue(user=users["inspector"], acting_user=users["inspector"])
    _construction(users, date.today())
