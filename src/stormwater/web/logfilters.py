"""Logging filters (settings.LOGGING).

``ClientErrorsOneLine``: Django logs every 4xx answer on ``django.request`` with the exception that caused it, so each
403 (``PermissionDenied``) and 404 (``Http404``) wrote a full traceback (issue 27: 2,047 from one run of the
authorization matrix) — noise that hides the real errors. A refused or missing page is the system working: it
stays one line, "Forbidden (Permission denied): /path" with its status; 5xx keep their traceback."""
from __future__ import annotations

import logging

ONE_LINE_STATUSES = frozenset({403, 404})


class ClientErrorsOneLine(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", None) in ONE_LINE_STATUSES:
            record.exc_info, record.exc_text, record.stack_info = None, None, None
        return True
