"""A preview of the documents an act would issue, before it is issued (issue 16 "Preview, confirm, undo":
written decisions, permits and certificates show a preview of the PDF before issuing).

The act's own service runs — the same checks, the same wording, the same template — inside a transaction
that is then rolled back: nothing it wrote stays (status, timeline, audit row, ledger, the e-mail queued on
commit), and the files its documents wrote to storage are deleted. While it runs, ``render_pdf``
(utility/documents.py) marks every page "PREVIEW — NOT ISSUED", so a preview cannot pass for the document.
A refusal by the service propagates as it would for the act itself."""
from __future__ import annotations

import contextvars
import re
from typing import Callable

from django.db import transaction

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


class _Discard(Exception):
    pass


def preview_documents(run: Callable[[], object], *, case) -> list[tuple[str, bytes]]:
    """Run ``run()`` (the act) and roll it back; → the (file name, content) of each document it generated in
    ``case``'s file or in a case the act opened under it (a notice to correct opens its own case under the
    site's), in order. Refusals raise as they would for the act."""
    from stormwater.cases.models import CaseDocument

    last = CaseDocument.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    out: list[tuple[str, bytes]] = []
    token = _ACTIVE.set(True)
    try:
        with transaction.atomic():
            run()
            for doc in CaseDocument.objects.filter(pk__gt=last).select_related("case").order_by("pk"):
                if case.pk in (doc.case_id, doc.case.parent_id) and doc.generated:
                    with doc.file.open("rb") as f:
                        out.append((doc.original_name, f.read()))
                doc.file.storage.delete(doc.file.name)  # the row goes with the rollback; the file must go too
            raise _Discard
    except _Discard:
        pass
    finally:
        _ACTIVE.reset(token)
    return out
