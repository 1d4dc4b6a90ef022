"""Uploads: content type by magic bytes (PDF, PNG, JPEG, DWG), never the name or the browser's claim; size limit."""
import hashlib

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from stormwater.cases.models import CaseEvent
from stormwater.cases.services import (ERR_SIZE, ERR_TYPE, DocumentError, case_document_add, case_open,
                                       sniff_content_type)

SAMPLES = {
    "application/pdf": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n",
    "image/png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    "image/jpeg": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00",
    "image/vnd.dwg": b"AC1032\x00\x00\x00\x00\x00\x00",
}


@pytest.mark.parametrize("ctype,head", list(SAMPLES.items()))
def test_accepted_kinds_by_magic_bytes(ctype, head):
    assert sniff_content_type(head) == ctype


@pytest.mark.parametrize("head", [b"MZ\x90\x00", b"<html><script>", b"PK\x03\x04", b"ACAD", b"AC10xx", b""])
def test_other_kinds_are_refused(head):
    assert sniff_content_type(head) is None


@pytest.mark.django_db
def test_upload_is_stored_with_its_sniffed_type_and_hash(personas):
    case = case_open(kind="permit", title="t", acting_user=None)
    data = SAMPLES["image/vnd.dwg"] + b"rest of drawing"
    doc = case_document_add(case=case, upload=SimpleUploadedFile("site.dwg", data, content_type="text/plain"),
                            tag="autocad", title="Plans", acting_user=personas["owner"])
    assert doc.content_type == "image/vnd.dwg" and doc.size == len(data)
    assert doc.sha256 == hashlib.sha256(data).hexdigest()
    assert doc.file.read() == data and doc.file.name.startswith(f"cases/{case.number}/")
    assert CaseEvent.objects.filter(case=case, kind="document").count() == 1


@pytest.mark.django_db
def test_a_renamed_executable_is_refused(personas):
    case = case_open(kind="permit", title="t", acting_user=None)
    with pytest.raises(DocumentError) as e:
        case_document_add(case=case, upload=SimpleUploadedFile("plan.pdf", b"MZ\x90\x00evil", "application/pdf"),
                          tag="swmp", title="", acting_user=None)
    assert str(e.value) == ERR_TYPE and not case.documents.exists()


@pytest.mark.django_db
def test_size_limit(settings, personas):
    settings.CASE_UPLOAD_MAX_BYTES = 1024 * 1024
    case = case_open(kind="permit", title="t", acting_user=None)
    big = SimpleUploadedFile("big.pdf", SAMPLES["application/pdf"] + b"0" * (1024 * 1024), "application/pdf")
    with pytest.raises(DocumentError) as e:
        case_document_add(case=case, upload=big, tag="swmp", title="", acting_user=None)
    assert str(e.value) == ERR_SIZE.format(mb=1)
