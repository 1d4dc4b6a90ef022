"""A preview of the documents an act would issue, before it is issued (issue 16 "Preview, confirm, undo":
written decisions, permits and certificates show a preview of the PDF before issuing).

The act's own service runs — the same checks, the same wording, the same template — inside a transaction
that is then rolled back: nothing it wrote stays (status, timeline, audit row, ledger, the e-mail queued on
commit), and the files its documents wrote to storage are deleted. While it runs, ``render_pdf``
(utility/documents.py) marks every page "PREVIEW — NOT ISSUED", so a preview cannot pass for the document.
A refusal by the service propagates as it would for the act itself.

This module is the mark (``previewing``, ``mark_html``); the documents an act would issue are a case's, so the
preview of them is the cases app's (``cases.preview.preview_documents``)."""
from __future__ import annotations

import contextvars
import re
from collections.abc import Iterator
from contextlib import contextmanager

_ACTIVE: contextvars.ContextVar[bool] = contextvars.ContextVar("document_preview", default=False)

MARK = "PREVIEW — NOT ISSUED"
_BANNER = ('<div style="position:fixed;top:40%;left:0;width:100%;text-align:center;'
           'font:bold 54pt sans-serif;color:rgba(190,0,0,.22);z-index:99">' + MARK + '</div>')


def previewing() -> bool:
    return _ACTIVE.get()


def mark_html(html: str) -> str:
    """The document's HTML with the preview mark on every page (a fixed element repeats on each page)."""
    if not previewing():
        return html
    out, n = re.subn(r"(<body[^>]*>)", lambda m: m.group(1) + _BANNER, html, count=1)
    return out if n else _BANNER + html


@contextmanager
def preview_marking() -> Iterator[None]:
    """While inside, every document rendered is marked as a preview (``previewing`` is true)."""
    token = _ACTIVE.set(True)
    try:
        yield
    finally:
        _ACTIVE.reset(token)
