"""A preview of the documents an act would issue, before it is issued (issue 16 "Preview, confirm, undo": written
decisions, permits, certificates and notices show a preview of the PDF before issuing; web/preview.py is the mark).

The act's own service runs — the same checks, the same wording, the same template — inside a transaction that is
then rolled back: nothing it wrote stays (status, timeline, audit row, ledger, the e-mail queued on commit), and the
files its documents wrote to storage are deleted. A refusal by the service propagates as it would for the act."""
from __future__ import annotations

from typing import Callable

from django.db import transaction

from stormwater.web.preview import preview_marking

from .models import CaseDocument


class _Discard(Exception):
    pass


def preview_documents(run: Callable[[], object], *, case) -> list[tuple[str, bytes]]:
    """Run ``run()`` (the act) and roll it back; → the (file name, content) of each document it generated in
    ``case``'s file or in a case the act opened under it (a notice to correct opens its own case under the
    site's), in order. Refusals raise as they would for the act."""
    last = CaseDocument.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    out: list[tuple[str, bytes]] = []
    with preview_marking():
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
    return out
