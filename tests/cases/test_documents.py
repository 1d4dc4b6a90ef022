"""Uploads: content type by magic bytes (PDF, PNG, JPEG, DWG), never the name or the browser's claim; size limit."""
import hashlib

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from stormwater.cases.models import CaseEvent
from .test_upload_content import image
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


# --- the file's name and its content must agree (issue 14) ------------------------------------------------------

JPEG_THEN_HTML = SAMPLES["image/jpeg"] + b"<html><body><script>alert(document.cookie)</script></body></html>"


@pytest.mark.django_db
@pytest.mark.parametrize("name,data", [
    ("photo.hta", JPEG_THEN_HTML),                      # an HTML application behind a JPEG header
    ("photo.html", JPEG_THEN_HTML),
    ("setup.pdf.exe", SAMPLES["application/pdf"]),      # a PDF named to run
    ("plan.png", SAMPLES["application/pdf"]),           # a PDF named as an image
    ("site.jpg", SAMPLES["image/png"]),
    ("drawing", SAMPLES["image/vnd.dwg"]),              # no extension at all
    ("scan.pdf.", SAMPLES["application/pdf"]),
])
def test_an_extension_that_does_not_match_the_content_is_refused(personas, name, data):
    case = case_open(kind="permit", title="t", acting_user=None)
    with pytest.raises(DocumentError) as e:
        case_document_add(case=case, upload=SimpleUploadedFile(name, data, "application/octet-stream"),
                          tag="other", title="", acting_user=personas["owner"])
    assert "by its content" in str(e.value) and name in str(e.value)
    assert not case.documents.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("name,ctype", [("Site Plan.PDF", "application/pdf"), ("photo.jpeg", "image/jpeg"),
                                        ("photo.JPG", "image/jpeg"), ("map.png", "image/png"),
                                        ("grading.dwg", "image/vnd.dwg")])
def test_an_extension_of_the_content_type_is_accepted_in_any_case(personas, name, ctype):
    case = case_open(kind="permit", title="t", acting_user=None)
    # images are decoded since issue 27 (web.uploads): a real one; the others' first bytes are enough here
    content = {"image/png": image("PNG"), "image/jpeg": image("JPEG")}.get(ctype, SAMPLES[ctype] + b"...")
    doc = case_document_add(case=case, upload=SimpleUploadedFile(name, content, "text/plain"),
                            tag="other", title="", acting_user=personas["owner"])
    assert doc.content_type == ctype and doc.original_name == name


def test_a_stored_document_whose_name_disagrees_with_its_content_is_saved_under_a_safe_name():
    """Documents stored before the check: a PDF named ``setup.pdf.exe`` is downloaded (never opened inline) as a
    ``.pdf``; an agreeing PDF still opens in the browser."""
    from types import SimpleNamespace

    from django.core.files.base import ContentFile

    from stormwater.web.files import document_response

    def serve(name, ctype="application/pdf"):
        return document_response(SimpleNamespace(file=ContentFile(b"%PDF-"), content_type=ctype, original_name=name))

    assert serve("setup.pdf.exe")["Content-Disposition"] == 'attachment; filename="setup.pdf.exe.pdf"'
    assert serve("photo.hta", "image/jpeg")["Content-Disposition"] == 'attachment; filename="photo.hta.jpg"'
    assert serve("plan.pdf")["Content-Disposition"] == 'inline; filename="plan.pdf"'


# --- an allow-list a data type can join with its own content check ------------------------------------------------

@pytest.mark.django_db
def test_data_types_are_accepted_only_where_asked_and_only_if_they_parse(personas):
    from stormwater.web.filetypes import DOCUMENT_TYPES, JSON_DATA, YAML_DATA

    case = case_open(kind="permit", title="t", acting_user=None)
    plan_types = DOCUMENT_TYPES + (JSON_DATA, YAML_DATA)

    def add(name, data, types=plan_types):
        return case_document_add(case=case, upload=SimpleUploadedFile(name, data, "text/plain"), tag="swmp",
                                 title="", acting_user=None, types=types)

    assert add("plan.yaml", b"schema: longmeadow-swmp/1\nsite: {name: Elm}\n").content_type == "application/yaml"
    assert add("plan.yml", "title: Caf\u00e9\n".encode()).content_type == "application/yaml"
    assert add("plan.json", b'{"schema": "longmeadow-swmp/1"}').content_type == "application/json"
    assert add("plan.pdf", SAMPLES["application/pdf"]).content_type == "application/pdf"
    assert add("plan.yaml", b'{"schema": 1}').content_type == "application/yaml"  # JSON is YAML too
    for name, data in [("plan.yaml", b"key: [unclosed\n"),            # does not parse
                       ("plan.json", b"{'single': quotes}"),
                       ("plan.yaml", b"caf\xe9: 1\n"),                  # not UTF-8
                       ("plan.yaml", b"\x00\x01binary"),
                       ("plan.json", b'{"schema": 1}'[:0]),             # empty
                       ("plan.yaml", b"<html><script>x</script></html>"),  # text that is not data
                       ("plan.json", b'"just a string"'),
                       ("plan.exe", b'{"schema": 1}')]:
        with pytest.raises(DocumentError):
            add(name, data)
    with pytest.raises(DocumentError) as e:
        add("plan.yaml", b"schema: longmeadow-swmp/1\n", types=DOCUMENT_TYPES)  # not a document type
    assert str(e.value) == ERR_TYPE
