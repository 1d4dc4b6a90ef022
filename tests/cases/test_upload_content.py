"""Issue 27 "uploads decoded, not sniffed": a JPEG header followed by HTML, an 84-byte PNG claiming 30000×30000
pixels and a PDF with HTML and an auto-run JavaScript action were stored as case documents (field photos refused them
all). Every upload now goes through web.uploads.upload_refusal (cases.services.case_document_add)."""
from __future__ import annotations

import io
import struct
import zlib

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image
from pypdf import PdfWriter
from pypdf.generic import ArrayObject, DictionaryObject, NameObject, TextStringObject

from stormwater.cases.services import DocumentError, case_document_add, case_open
from stormwater.web.uploads import ERR_HTML, pdf_active_content


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_bomb() -> bytes:
    """A PNG whose header claims 30000×30000 pixels, in 84 bytes."""
    data = (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", 30000, 30000, 8, 2, 0, 0, 0))
            + _chunk(b"IDAT", zlib.compress(b"\x00" * 20, 9)) + _chunk(b"IEND", b""))
    return data.ljust(84, b"\x00")[:84] if len(data) < 84 else data


def image(fmt: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (40, 30), (20, 120, 200)).save(out, fmt)
    return out.getvalue()


def pdf(*, js: bool = False, open_action: bool = False, aa: bool = False) -> bytes:
    w = PdfWriter()
    page = w.add_blank_page(200, 200)
    if js:  # a document-level script in the names tree (what add_js wrote before pypdf 7)
        script = w._add_object(DictionaryObject({NameObject("/S"): NameObject("/JavaScript"),
                                                 NameObject("/JS"): TextStringObject("app.alert('hi');")}))
        names = ArrayObject([TextStringObject("hello"), script])
        w._root_object[NameObject("/Names")] = DictionaryObject(
            {NameObject("/JavaScript"): DictionaryObject({NameObject("/Names"): names})})
    if open_action:
        w._root_object[NameObject("/OpenAction")] = DictionaryObject(
            {NameObject("/S"): NameObject("/JavaScript"), NameObject("/JS"): TextStringObject("app.alert(1)")})
    if aa:
        page[NameObject("/AA")] = DictionaryObject({NameObject("/O"): DictionaryObject(
            {NameObject("/S"): NameObject("/Launch")})})
    out = io.BytesIO()
    w.write(out)
    return out.getvalue()


def _add(case, name, data):
    return case_document_add(case=case, upload=SimpleUploadedFile(name, data), tag="other", title="", acting_user=None)


@pytest.fixture
def case(db, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return case_open(kind="permit", title="t", acting_user=None)


@pytest.mark.parametrize("name, data, says", [
    ("bomb.png", png_bomb(), "not an image this system can read"),
    ("photo.jpg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00<html><script>alert(1)</script></html>", "HTML"),
    ("photo.jpg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 200, "not an image this system can read"),
    ("plan.pdf", pdf() + b"\n<html><body><script>fetch('/')</script></body></html>", "HTML"),
    ("plan.pdf", pdf(js=True), "/JavaScript"),
    ("plan.pdf", pdf(open_action=True), "/OpenAction"),
    ("plan.pdf", pdf(aa=True), "/AA"),
    ("plan.pdf", b"%PDF-1.4\n1 0 obj<</Type/Catalog/OpenAction<</S/J#61vaScript/J#53(x)>>>>endobj\n%%EOF", "/JS"),
])
def test_an_upload_is_refused_by_what_its_content_decodes_to(case, name, data, says):
    with pytest.raises(DocumentError, match=says):
        _add(case, name, data)
    assert not case.documents.exists()


def test_the_bomb_is_small_and_claims_30000_by_30000():
    data = png_bomb()
    assert len(data) == 84 and struct.unpack(">II", data[16:24]) == (30000, 30000)


@pytest.mark.parametrize("name, data", [("site.png", image("PNG")), ("site.jpg", image("JPEG")),
                                        ("plan.pdf", pdf())])
def test_real_images_and_a_plain_pdf_are_kept(case, name, data):
    assert _add(case, name, data).file.read() == data
    assert pdf_active_content(pdf()) == []


def test_html_is_refused_whatever_the_name_says(case):
    with pytest.raises(DocumentError) as e:
        _add(case, "plan.pdf", b"%PDF-1.4\n<!DOCTYPE html><html><p>hi</p></html>")
    assert str(e.value) == ERR_HTML.format(name="plan.pdf")


def _photo_with_gps() -> bytes:
    im = Image.new("RGB", (40, 30), (20, 120, 200))
    exif = Image.Exif()
    exif[0x010F] = "PhoneMaker"
    exif[0x8825] = {1: "N", 2: (42.0, 3.0, 10.0), 3: "W", 4: (72.0, 35.0, 5.0)}
    out = io.BytesIO()
    im.save(out, "JPEG", exif=exif)
    return out.getvalue()


def test_an_owners_evidence_photo_is_stored_without_its_gps_position_unless_kept(client_for, personas, case):
    """Issue 27: owner evidence photos kept their GPS position and were served back byte for byte."""
    from stormwater.cases.models import CaseDocument

    data = _photo_with_gps()
    assert 0x8825 in Image.open(io.BytesIO(data)).getexif()
    doc = case_document_add(case=case, upload=SimpleUploadedFile("yard.jpg", data), tag="evidence", title="",
                            acting_user=None, keep_location=False)
    stored = doc.file.read()
    exif = Image.open(io.BytesIO(stored)).getexif()
    assert 0x8825 not in exif and exif[0x010F] == "PhoneMaker" and Image.open(io.BytesIO(stored)).size == (40, 30)
    assert doc.size == len(stored) and doc.sha256 == __import__("hashlib").sha256(stored).hexdigest()
    kept = case_document_add(case=case, upload=SimpleUploadedFile("yard2.jpg", data), tag="evidence", title="",
                             acting_user=None)  # staff and field photos keep it (the default)
    assert kept.file.read() == data
    assert CaseDocument.objects.filter(case=case).count() == 2
