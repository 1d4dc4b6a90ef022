"""Issue 18: the report as the inspector files it from the field — checklist rows, photos with the camera's time
and position, a signature, the PDF holding them, and one report however often it is sent."""
from datetime import date, datetime, timedelta, timezone as dt_timezone
from decimal import Decimal as D
import subprocess
import shutil

import pytest
from django.db import IntegrityError, transaction

from stormwater.construction import services as cs
from stormwater.construction.models import ChecklistRow, Inspection, InspectionPhoto
from stormwater.construction.photos import PhotoError, exif_position, exif_time, photo_facts, thumbnail_jpeg
from stormwater.construction.reporting import (ERR_ROW_FAILED, ERR_ROW_NOTE, ERR_SIGNATURE_NAME, AlreadyFiled,
                                               RowInput, SignatureInput)

from .conftest import EASTERN, dt, report
from .images import jpeg_bytes, png_bytes, upload


@pytest.fixture
def site(project, personas, at):
    at(date(2026, 4, 21), 11)
    fence = cs.site_control_add(project=project, kind="perimeter", name="Silt fence along the brook",
                                location="east edge", acting_user=personas["inspector"])
    exit_ = cs.site_control_add(project=project, kind="exit", name="Stone construction exit", acting_user=personas["staff"])
    return project, fence, exit_


# --- photos: EXIF time and position, thumbnails (pure) ----------------------------------------------------------

def test_exif_time_and_position_are_read_from_the_image():
    f = photo_facts(jpeg_bytes())
    assert f.format == "JPEG" and (f.width, f.height) == (640, 480)
    assert f.taken_at == datetime(2026, 7, 6, 9, 58, 12, tzinfo=dt_timezone(timedelta(hours=-4)))
    assert f.latitude == pytest.approx(42 + 3 / 60 + 1.8 / 3600) and f.longitude == pytest.approx(-(72 + 34 / 60 + 57.5 / 3600))


def test_a_photo_without_exif_has_no_time_and_no_position():
    f = photo_facts(jpeg_bytes(taken=None, offset=None, lat=None))
    assert f.taken_at is None and f.latitude is None and f.longitude is None


def test_exif_edge_values():
    assert exif_time("2026:07:06 09:58:12") == datetime(2026, 7, 6, 9, 58, 12)  # no offset: the camera's clock
    assert exif_time("0000:00:00 00:00:00") is None and exif_time("    ") is None and exif_time(None) is None
    assert exif_time("2026:07:06 09:58:12", "+25:00") == datetime(2026, 7, 6, 9, 58, 12)  # absurd offset ignored
    assert exif_position({1: "N", 2: (0.0, 0.0, 0.0), 3: "E", 4: (0.0, 0.0, 0.0)}) == (None, None)  # no fix
    assert exif_position({1: "S", 2: (33.0, 52.0, 4.0), 3: "E", 4: (151.0, 12.0, 36.0)})[0] < 0
    assert exif_position({1: "N", 2: (95.0, 0.0, 0.0), 3: "W", 4: (72.0, 0.0, 0.0)}) == (None, None)


def test_a_rotated_photo_reports_its_upright_size_and_its_thumbnail_is_small():
    f = photo_facts(jpeg_bytes(size=(800, 600), orientation=6))
    assert (f.width, f.height) == (600, 800)
    from PIL import Image
    import io
    t = Image.open(io.BytesIO(thumbnail_jpeg(jpeg_bytes(size=(800, 600), orientation=6))))
    assert t.format == "JPEG" and max(t.size) == 320 and t.size[1] > t.size[0]


def test_heic_and_fake_images_are_refused_by_content():
    heic = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 64
    with pytest.raises(PhotoError, match="HEIC"):
        photo_facts(heic, "IMG_0001.HEIC")
    with pytest.raises(PhotoError, match="not a photo"):
        photo_facts(b"\xff\xd8\xff\xe0" + b"<html><script>alert(1)</script></html>", "x.jpg")


# --- filing from the field ----------------------------------------------------------------------------------------

def _field_report(fence, exit_, **kw):
    base = dict(rows=(RowInput(control_id=fence.pk, condition="needs_maintenance", note="Fence sagging at the outlet",
                               photos=(upload("fence.jpg", jpeg_bytes()),)),
                      RowInput(control_id=exit_.pk, condition="in_place")),
                photos=(upload("overview.jpg", jpeg_bytes(taken="2026:04:21 09:40:00", offset=None)),),
                signature=SignatureInput(method="drawn", name="Ivy Inspector", image=upload("sig.png", png_bytes(),
                                                                                           "image/png")),
                client_key="0b6f3c1e-5d1c-4f5e-9c8e-3b1b1c2d3e4f")
    base.update(kw)
    return report("erosion_pre_start", dt(2026, 4, 21, 10), **base)


def test_rows_photos_and_signature_are_kept_with_the_report_and_printed(site, personas, at, tmp_path):
    project, fence, exit_ = site
    at(date(2026, 4, 21), 11)
    insp = cs.inspection_report_file(project=project, report=_field_report(fence, exit_), acting_user=personas["inspector"])
    rows = list(insp.rows.all())
    assert [(r.label, r.condition) for r in rows] == [
        ("Silt fence along the brook (Perimeter control (silt fence, fiber roll, berm)), east edge", "needs_maintenance"),
        ("Stone construction exit (Stabilized construction exit)", "in_place")]
    photos = list(insp.photos.all())
    assert len(photos) == 2 and photos[0].row == rows[0] and photos[1].row is None
    assert photos[0].taken_at == datetime(2026, 7, 6, 13, 58, 12, tzinfo=dt_timezone.utc)
    assert photos[1].taken_at == datetime(2026, 4, 21, 9, 40, tzinfo=EASTERN)  # no offset: the town's local time
    assert photos[0].latitude == pytest.approx(42.05050) and photos[0].document.content_type == "image/jpeg"
    assert photos[0].thumbnail.name.endswith(".jpg") and photos[0].document.tag == "inspection_photo"
    assert insp.signature_method == "drawn" and insp.signature_document.content_type == "image/png"
    assert insp.client_key == "0b6f3c1e-5d1c-4f5e-9c8e-3b1b1c2d3e4f"
    # the PDF holds both photos and the signature as images
    pdf = tmp_path / "r.pdf"
    pdf.write_bytes(insp.document.file.read())
    if shutil.which("pdfimages"):
        listing = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True, check=True).stdout
        images = [line.split() for line in listing.splitlines()[2:]]
        sizes = sorted((int(r[3]), int(r[4])) for r in images if r[2] == "image")
        assert sizes == [(300, 100), (640, 480), (640, 480)], listing
    text = " ".join(subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout.split())
    assert "Needs maintenance" in text and "Taken July 6, 2026 09:58" in text and "42.05050" in text
    assert "signed on the screen" in text


def test_the_same_report_sent_twice_is_filed_once(site, personas, at):
    project, fence, exit_ = site
    at(date(2026, 4, 21), 11)
    first = cs.inspection_report_file(project=project, report=_field_report(fence, exit_), acting_user=personas["inspector"])
    n_docs = project.case.documents.count()
    with pytest.raises(AlreadyFiled) as e:
        cs.inspection_report_file(project=project, report=_field_report(fence, exit_), acting_user=personas["inspector"])
    assert e.value.inspection == first
    assert Inspection.objects.filter(client_key=first.client_key).count() == 1
    assert project.case.documents.count() == n_docs and InspectionPhoto.objects.count() == 2


def test_the_database_refuses_a_second_report_with_the_same_key(site, personas, at):
    project, fence, exit_ = site
    at(date(2026, 4, 21), 11)
    first = cs.inspection_report_file(project=project, report=_field_report(fence, exit_, rows=(), photos=()),
                                      acting_user=personas["inspector"])
    with pytest.raises(IntegrityError), transaction.atomic():
        Inspection.objects.create(project=project, kind="erosion_routine", inspected_at=first.inspected_at,
                                  location="x", inspector_name="x", inspector_credentials="x", weather="x",
                                  precipitation_24h_in=D("0"), evaluation="compliant", client_key=first.client_key)


def test_a_failed_control_needs_the_violations_evaluation_and_every_problem_a_note(site, personas, at):
    project, fence, exit_ = site
    at(date(2026, 4, 21), 11)
    n = Inspection.objects.count()
    with pytest.raises(cs.ConstructionError) as e:
        cs.inspection_report_file(project=project, report=_field_report(fence, exit_, rows=(
            RowInput(control_id=fence.pk, condition="failed", note="Fence down"),)), acting_user=personas["inspector"])
    assert str(e.value) == ERR_ROW_FAILED.format(items="Silt fence along the brook (Perimeter control (silt fence, "
                                                       "fiber roll, berm)), east edge")
    with pytest.raises(cs.ConstructionError) as e:
        cs.inspection_report_file(project=project, report=_field_report(fence, exit_, rows=(
            RowInput(control_id=exit_.pk, condition="needs_maintenance"),)), acting_user=personas["inspector"])
    assert str(e.value) == ERR_ROW_NOTE.format(label="Stone construction exit (Stabilized construction exit)",
                                               condition="needs maintenance")
    with pytest.raises(cs.ConstructionError, match="in place, needs maintenance or failed"):
        cs.inspection_report_file(project=project, report=_field_report(fence, exit_, rows=(
            RowInput(control_id=exit_.pk, condition=""),)), acting_user=personas["inspector"])
    assert Inspection.objects.count() == n and ChecklistRow.objects.count() == 0
    ok = cs.inspection_report_file(project=project, report=_field_report(fence, exit_, rows=(
        RowInput(control_id=fence.pk, condition="failed", note="Fence down"),), evaluation="violations",
        corrective_steps="Restake the fence today"), acting_user=personas["inspector"])
    assert ok.rows.get().condition == "failed"


def test_another_sites_control_and_a_fake_photo_are_refused(site, personas, at, approved):
    project, fence, exit_ = site
    at(date(2026, 4, 21), 11)
    with pytest.raises(cs.ConstructionError, match="not a control or BMP of this site"):
        cs.inspection_report_file(project=project, report=_field_report(fence, exit_, rows=(
            RowInput(control_id=fence.pk + 100, condition="in_place"),)), acting_user=personas["inspector"])
    with pytest.raises(cs.ConstructionError, match="not a photo"):
        cs.inspection_report_file(project=project, report=_field_report(fence, exit_, photos=(
            upload("evil.jpg", b"\xff\xd8\xff\xe0<html>hello</html>"),)), acting_user=personas["inspector"])
    assert Inspection.objects.count() == 0


def test_a_typed_attestation_needs_the_name(site, personas, at):
    project, fence, exit_ = site
    at(date(2026, 4, 21), 11)
    with pytest.raises(cs.ConstructionError) as e:
        cs.inspection_report_file(project=project, report=_field_report(
            fence, exit_, signature=SignatureInput(method="typed", name="  ")), acting_user=personas["inspector"])
    assert str(e.value) == ERR_SIGNATURE_NAME
    insp = cs.inspection_report_file(project=project, report=_field_report(
        fence, exit_, photos=(), signature=SignatureInput(method="typed", name="Ivy Inspector")),
        acting_user=personas["inspector"])
    assert insp.signature_method == "typed" and insp.signed_name == "Ivy Inspector" and insp.signature_document is None


def test_controls_and_position(site, personas, at):
    project, fence, exit_ = site
    with pytest.raises(cs.ConstructionError):
        cs.site_control_add(project=project, kind="perimeter", name=" ", acting_user=personas["inspector"])
    with pytest.raises(cs.ConstructionError):
        cs.site_control_add(project=project, kind="volcano", name="x", acting_user=personas["inspector"])
    cs.site_control_remove(control=fence, acting_user=personas["inspector"])
    fence.refresh_from_db()
    assert fence.removed_on == date(2026, 4, 21)
    with pytest.raises(cs.ConstructionError):
        cs.project_position_set(project=project, latitude=91, longitude=0, acting_user=personas["inspector"])
    cs.project_position_set(project=project, latitude=42.0512345678, longitude=-72.58, acting_user=personas["inspector"])
    project.refresh_from_db()
    assert (project.latitude, project.longitude) == (42.051235, -72.58)
