"""The one check of an upload's content, after its type is known (issue 27 "uploads decoded, not sniffed").

``web.filetypes`` says what a file is by its first bytes and its name; this says whether its content is safe to
keep and serve back, by decoding it:
- **HTML is never accepted**, whatever the file claims to be: markup a browser would run (``<html``, ``<script``,
  ``<iframe`` …) anywhere in the file, or an HTML start in its first kilobyte (the WHATWG sniffing rules), is
  refused — a JPEG header followed by HTML, a PDF carrying HTML.
- **Images** (PNG, JPEG) are opened and checked by Pillow (``filetypes.pillow_image``, the field photos' check, now
  every upload's): structure intact and at most ``MAX_IMAGE_PIXELS`` pixels; Pillow's own decompression-bomb limit
  is set to the same number, so an 84-byte PNG claiming 30000×30000 pixels is refused before anything is decoded.
- **PDFs** are parsed with pypdf and refused when they carry JavaScript or an automatic action: ``/JavaScript``,
  ``/JS``, ``/OpenAction``, ``/AA`` (additional actions), ``/Launch`` anywhere in their object graph (pypdf decodes
  escaped names such as ``/J#53`` and reads compressed object streams). The raw bytes are searched for the same
  names too, for a file pypdf cannot read whole.
``cases.services.case_document_add`` — every case document, owner evidence and field photo — calls ``upload_refusal``.
"""
from __future__ import annotations

import io
import re

from stormwater.web.filetypes import MAX_IMAGE_PIXELS, FileType, pillow_image

ERR_HTML = "“{name}” contains web-page markup (HTML), which is never accepted in an upload."
ERR_IMAGE = ("“{name}” is not an image this system can read ({label}), or it is larger than {mp} megapixels.")
ERR_PDF_ACTIVE = ("“{name}” is a PDF that runs something when opened ({found}). Print it to a new PDF (or save it "
                  "as PDF/A) and upload that.")

HTML_ANYWHERE = re.compile(rb"<\s*(html|script|iframe|object|embed|svg|body|head|meta\s+http-equiv)[\s>/]",
                           re.IGNORECASE)
HTML_START = re.compile(rb"^[\s\xef\xbb\xbf]*<\s*(!doctype\s+html|html|head|body|script|iframe|h1|div|font|table|a|"
                        rb"style|title|b|br|p|!--)[\s>]", re.IGNORECASE)
PDF_ACTIVE_NAMES = ("/JavaScript", "/JS", "/OpenAction", "/AA", "/Launch")
_RAW_ACTIVE = re.compile(rb"/(JavaScript|JS|OpenAction|AA|Launch)(?=[\s/<>\[\]()%{}]|$)")
_NAME_ESCAPE = re.compile(rb"#([0-9A-Fa-f]{2})")
_MAX_PDF_OBJECTS = 500_000  # a walk over a PDF's objects stops here (a real plan set has tens of thousands)
IMAGE_TYPES = {"image/png": "PNG", "image/jpeg": "JPEG"}


def upload_refusal(name: str, data: bytes, ftype: FileType) -> str | None:
    """Why an upload of type ``ftype`` (already matched by name and first bytes) is refused, or None."""
    if HTML_START.match(data[:1024]) or HTML_ANYWHERE.search(data):
        return ERR_HTML.format(name=name)
    fmt = IMAGE_TYPES.get(ftype.content_type)
    if fmt and not pillow_image(fmt)(data[:16], lambda: data):
        return ERR_IMAGE.format(name=name, label=ftype.label, mp=MAX_IMAGE_PIXELS // 1_000_000)
    if ftype.content_type == "application/pdf":
        found = pdf_active_content(data)
        if found:
            return ERR_PDF_ACTIVE.format(name=name, found=", ".join(found))
    return None


def pdf_active_content(data: bytes) -> list[str]:
    """The names of JavaScript and automatic actions a PDF carries (sorted; empty when none)."""
    unescaped = _NAME_ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), data)  # /J#53 is /JS
    found = {"/" + m.group(1).decode() for m in _RAW_ACTIVE.finditer(unescaped)}
    try:
        from pypdf import PdfReader
        from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject

        reader = PdfReader(io.BytesIO(data), strict=False)
        seen: set[tuple[int, int]] = set()
        todo = [reader.trailer]
        while todo and len(seen) < _MAX_PDF_OBJECTS:
            obj = todo.pop()
            if isinstance(obj, IndirectObject):
                key = (obj.idnum, obj.generation)
                if key in seen:
                    continue
                seen.add(key)
                obj = obj.get_object()
            if isinstance(obj, DictionaryObject):  # a stream's dictionary too
                found |= {k for k in obj.keys() if k in PDF_ACTIVE_NAMES}
                if obj.get("/S") in ("/JavaScript", "/Launch"):
                    found.add(str(obj.get("/S")))
                todo.extend(v for k, v in obj.items() if k != "/Parent")
            elif isinstance(obj, ArrayObject):
                todo.extend(obj)
    except Exception:  # noqa: BLE001 - a PDF pypdf cannot read whole is judged by its raw bytes above
        pass
    return sorted(found)


GPS_IFD = 0x8825  # EXIF's GPS information (CIPA DC-008, Exif 2.32, tag 34853)


def image_without_location(data: bytes, content_type: str) -> bytes:
    """A PNG or JPEG without the GPS position its camera wrote (the EXIF GPS block; XMP, which may repeat it, is not
    written back), everything else of the picture kept (a JPEG keeps its quantization: ``quality="keep"``). An image
    without a position is returned as it is. Owner evidence photos are stored so unless the owner keeps the position
    on purpose (issue 27: they were served back byte for byte with the house's position)."""
    from PIL import Image

    fmt = IMAGE_TYPES.get(content_type)
    if fmt is None:
        return data
    with Image.open(io.BytesIO(data)) as im:
        exif = im.getexif()
        if GPS_IFD not in exif and not im.info.get("xmp") and b"GPSLatitude" not in data:
            return data
        exif.pop(GPS_IFD, None)
        out = io.BytesIO()
        extra = {"icc_profile": im.info["icc_profile"]} if im.info.get("icc_profile") else {}
        if fmt == "JPEG":
            im.save(out, "JPEG", quality="keep", exif=exif.tobytes(), **extra)
        else:
            im.save(out, "PNG", exif=exif.tobytes(), **extra)
    return out.getvalue()
