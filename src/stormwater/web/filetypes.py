"""The file types an upload may be (a case's documents, a plan, a photo): an allow-list where each type names its content type, the file-name
extensions that may carry it, and the check of its content. A file is accepted only when its name's extension
belongs to an allowed type AND its content passes that type's check (issue 14: a JPEG header followed by HTML is
not stored as ``photo.hta``; a PDF named ``setup.pdf.exe`` is not stored at all). The browser's claimed type is
never read.

A new type joins the list with its own check: binary formats by their magic bytes (``magic``), data files as
UTF-8 text that parses (``JSON_DATA`` and ``YAML_DATA``, for e.g. a stormwater management plan). A service passes
the tuple it accepts to ``cases.services.case_document_add(types=...)``; ``DOCUMENT_TYPES`` is the default.
Part of the toolkit (``web.files.document_response`` reads it too); ``cases.filetypes`` re-exports it.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Callable

HEAD_BYTES = 16  # enough for every magic number below


@dataclass(frozen=True)
class FileType:
    """``check(head, read_all)`` says whether the content is of this type: ``head`` is the first HEAD_BYTES bytes,
    ``read_all()`` returns the whole file (for checks that must read it, e.g. parse it)."""

    content_type: str
    label: str
    extensions: tuple[str, ...]  # lower case, with the dot; the first is the canonical one
    check: Callable[[bytes, Callable[[], bytes]], bool]
    inline: bool = False  # served for viewing in the browser (only PDF); everything else is downloaded


def magic(*prefixes: bytes) -> Callable[[bytes, Callable[[], bytes]], bool]:
    return lambda head, read_all: head.startswith(prefixes)


def _dwg(head: bytes, read_all) -> bool:
    """AutoCAD DWG: the version string "AC10nn" (e.g. AC1032 for AutoCAD 2018)."""
    return len(head) >= 6 and head[:4] == b"AC10" and head[4:6].isdigit()


def _utf8_text(data: bytes) -> str | None:
    if not data or b"\x00" in data:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def _json_data(head: bytes, read_all) -> bool:
    """UTF-8 text that parses as JSON to an object or an array (not a bare string or number)."""
    text = _utf8_text(read_all())
    if text is None:
        return False
    try:
        return isinstance(json.loads(text), (dict, list))
    except ValueError:
        return False


def _yaml_data(head: bytes, read_all) -> bool:
    """UTF-8 text that parses as YAML (safe loader: plain data, no objects) to a mapping or a sequence."""
    import yaml

    text = _utf8_text(read_all())
    if text is None:
        return False
    try:
        return isinstance(yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)), (dict, list))
    except yaml.YAMLError:
        return False


def _model_text(data: bytes) -> str | None:
    """Text as the engineering models are written: UTF-8, or ISO-8859-1 (NOAA's PFDS files carry a degree sign)."""
    if not data or b"\x00" in data:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


SWMM_SECTIONS = ("[TITLE]", "[OPTIONS]", "[SUBCATCHMENTS]", "[JUNCTIONS]", "[OUTFALLS]", "[STORAGE]", "[RAINGAGES]")


def _swmm_inp(head: bytes, read_all) -> bool:
    """An EPA SWMM 5 input file: text with at least one of SWMM's section headers on a line of its own
    (EPA SWMM 5.2 User's Manual, Appendix D "Input file format")."""
    text = _model_text(read_all())
    return text is not None and any(line.strip().upper() in SWMM_SECTIONS for line in text.splitlines())


def _pfds_csv(head: bytes, read_all) -> bool:
    """A NOAA Atlas 14 PFDS CSV download: text whose banner says "precipitation frequency estimates"."""
    text = _model_text(read_all())
    return text is not None and "precipitation frequency estimates" in text.lower()


def pillow_image(fmt: str) -> Callable[[bytes, Callable[[], bytes]], bool]:
    """An image Pillow decodes as ``fmt`` ("JPEG", "PNG") with its structure intact (``verify``) and at most
    ``MAX_IMAGE_PIXELS`` pixels — for photos taken in the field (construction inspections), which are thumbnailed
    and printed in reports, so a file that merely starts like a JPEG is not enough."""
    magic_prefix = {"JPEG": b"\xff\xd8\xff", "PNG": b"\x89PNG\r\n\x1a\n"}[fmt]

    def check(head: bytes, read_all) -> bool:
        import io
        import warnings

        from PIL import Image, UnidentifiedImageError

        if not head.startswith(magic_prefix):
            return False
        Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS  # Pillow's decompression-bomb limit: warns past it, refuses at 2×
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", Image.DecompressionBombWarning)
                with Image.open(io.BytesIO(read_all())) as im:
                    if im.format != fmt or im.width * im.height > MAX_IMAGE_PIXELS:
                        return False
                    im.verify()
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombWarning,
                Image.DecompressionBombError):
            return False
        return True
    return check


def is_heic(head: bytes) -> bool:
    """An HEIF/HEIC image (an iPhone's own format): an ISO-BMFF ``ftyp`` box with an HEIF brand. Recognized only to
    refuse it with a useful message (Pillow cannot read it without a plug-in; iPhones send JPEG from a web page)."""
    return len(head) >= 12 and head[4:8] == b"ftyp" and head[8:12] in HEIF_BRANDS


MAX_IMAGE_PIXELS = 80_000_000  # a 64-megapixel phone camera fits; a "decompression bomb" does not
HEIF_BRANDS = {b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1"}

PDF = FileType("application/pdf", "PDF", (".pdf",), magic(b"%PDF-"), inline=True)
PNG = FileType("image/png", "PNG", (".png",), magic(b"\x89PNG\r\n\x1a\n"))
JPEG = FileType("image/jpeg", "JPEG", (".jpg", ".jpeg"), magic(b"\xff\xd8\xff"))
DWG = FileType("image/vnd.dwg", "AutoCAD DWG", (".dwg",), _dwg)
JSON_DATA = FileType("application/json", "JSON", (".json",), _json_data)
YAML_DATA = FileType("application/yaml", "YAML", (".yaml", ".yml"), _yaml_data)

# Read by the engineering review (issue 19: the applicant's SWMM model and the site's rainfall), never stored as
# case documents, so not in ALL_TYPES: their text travels inside the plan file the review keeps.
SWMM_INP = FileType("text/plain", "SWMM 5 input", (".inp",), _swmm_inp)
PFDS_CSV = FileType("text/csv", "NOAA PFDS CSV", (".csv",), _pfds_csv)

# Photos taken in the field (construction inspections): decoded by Pillow, not only sniffed.
PHOTO_JPEG = FileType("image/jpeg", "JPEG", (".jpg", ".jpeg"), pillow_image("JPEG"))
PHOTO_PNG = FileType("image/png", "PNG", (".png",), pillow_image("PNG"))
PHOTO_TYPES: tuple[FileType, ...] = (PHOTO_JPEG, PHOTO_PNG)

# What a case's document upload accepts unless a service asks for more.
DOCUMENT_TYPES: tuple[FileType, ...] = (PDF, PNG, JPEG, DWG)
ALL_TYPES: tuple[FileType, ...] = (PDF, PNG, JPEG, DWG, JSON_DATA, YAML_DATA)


def extension(name: str) -> str:
    """The last extension of a file name, lower case with its dot ("" when there is none; "scan.pdf." has none)."""
    base = PurePosixPath(name.replace("\\", "/")).name
    if base.endswith(".") or "." not in base.strip("."):
        return ""
    return "." + base.rsplit(".", 1)[1].lower()


def type_by_content(head: bytes, read_all: Callable[[], bytes], types=ALL_TYPES) -> FileType | None:
    """The first of ``types`` whose check the content passes (binary types first: they only look at the head)."""
    for t in types:
        if t.check(head, read_all):
            return t
    return None


def type_of(content_type: str) -> FileType | None:
    return next((t for t in ALL_TYPES if t.content_type == content_type), None)


def names_agree(name: str, content_type: str) -> bool:
    """Whether a stored name's extension is one of its (sniffed) content type's."""
    t = type_of(content_type)
    return t is not None and extension(name) in t.extensions
