"""The sheet index of a plan set PDF (issue 18): each sheet's number, title, revision and date, read from the PDF as
its author made it, for the permit's list of approved plan sheets (Ch. 380 § 380-10 I; the permit names the plans
it approves). Staff check the proposal against the title blocks before the decision; nothing here is decided.

Where each value comes from, page by page (pypdf):
- the PDF's bookmarks, when a bookmark points at the page ("C-1 Site plan", "C-1 - SITE PLAN": CAD publishing
  makes one per sheet) → number and title;
- otherwise the page's text: the title block's "Sheet C-1" (or "Sheet No. C-1") → number; the first line of the
  drawing that is not the title block → title;
- the page's text: "Rev. 2" / "Revision B" → revision; the first date written YYYY-MM-DD or MM/DD/YYYY → date.
A page with no sheet number is left out and named (``SheetIndex.skipped``)."""
from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from datetime import date

from .plan import PlanSheet

NUMBER = r"[A-Z]{1,3}[-.]?\d{1,3}(?:\.\d{1,2})?[A-Z]?"
_BOOKMARK = re.compile(rf"^\s*(?:Sheet\s+)?({NUMBER})\s*(?:[-–—:·|]\s*|\s+)(.+?)\s*$", re.IGNORECASE)
_SHEET = re.compile(rf"\bSheet(?:\s+No\.?)?\s*:?\s*({NUMBER})\b", re.IGNORECASE)
_REV = re.compile(r"\bRev(?:ision\b|\.|\b)\s*:?\s*(?:No\.?\s*)?([A-Z0-9]{1,4})\b", re.IGNORECASE)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_US = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")
_TAIL = re.compile(r"\s*[-–—,]\s*Rev(?:ision\b|\.|\b).*$", re.IGNORECASE)


@dataclass
class SheetIndex:
    sheets: list[PlanSheet] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)   # pages (from 1) with no sheet number found
    pages: int = 0


def _date_in(text: str) -> str:
    for rx, order in ((_ISO, (0, 1, 2)), (_US, (2, 0, 1))):
        for m in rx.finditer(text):
            y, mo, d = (int(m.group(i + 1)) for i in order)
            try:
                return date(y, mo, d).isoformat()
            except ValueError:
                continue
    return ""


def _bookmarks(reader) -> dict[int, str]:
    """page index → the first bookmark title pointing at it (nested outlines flattened)."""
    out: dict[int, str] = {}

    def walk(items):
        for it in items:
            if isinstance(it, list):
                walk(it)
                continue
            try:
                page = reader.get_destination_page_number(it)
            except Exception:  # noqa: BLE001 - a bookmark to nowhere is not an error of the plan set
                continue
            if page is not None and page >= 0:
                out.setdefault(page, str(it.title or ""))
    try:
        walk(reader.outline)
    except Exception:  # noqa: BLE001 - a damaged outline: read the pages' text instead
        return {}
    return out


def sheet_index_from_pdf(content: bytes) -> SheetIndex:
    """Read a plan set PDF's sheets (see the module's docstring). A PDF pypdf cannot read → ValueError."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(content))
        pages = list(reader.pages)
    except (PdfReadError, OSError, ValueError) as e:
        raise ValueError(f"the plan set PDF cannot be read ({e})") from None
    marks = _bookmarks(reader)
    out = SheetIndex(pages=len(pages))
    for i, page in enumerate(pages):
        try:
            text = page.extract_text() or ""
        except Exception:  # noqa: BLE001 - an unreadable page: named as skipped unless its bookmark says it all
            text = ""
        number = title = ""
        m = _BOOKMARK.match(marks.get(i, ""))
        if m:
            number, title = m.group(1).upper(), m.group(2)
        else:
            s = _SHEET.search(text)
            if s:
                number = s.group(1).upper()
                lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
                title = next((ln for ln in lines if number.lower() not in ln.lower() and not _date_in(ln)), "")
        title = _TAIL.sub("", title).strip(" -–—:;")[:200].replace(";", ",")
        if not number or not title:
            out.skipped.append(i + 1)
            continue
        r = _REV.search(text)
        out.sheets.append(PlanSheet(number[:40], title, r.group(1)[:20] if r else "", _date_in(text)))
    return out
