"""Issue 27: every 403 wrote a full traceback to the log (2,047 from one authorization-matrix run). A 403 and a 404
are one line each (settings.LOGGING, web.logfilters); a 500 keeps its traceback."""
from __future__ import annotations

import logging

import pytest


@pytest.mark.parametrize("path, status", [("/api-tokens/", 403), ("/no-such-page/", 404),
                                          ("/parcels/NO-SUCH-PARCEL/", 404)])
def test_a_refused_or_missing_page_is_logged_as_one_line(client_for, personas, town, caplog, path, status):
    with caplog.at_level(logging.WARNING, logger="django.request"):
        r = client_for(personas["owner"]).get(path)
    assert r.status_code == status
    [record] = [rec for rec in caplog.records if rec.name == "django.request"]
    assert record.status_code == status and path in record.getMessage()
    assert record.exc_info is None and record.exc_text is None
    handler = logging.StreamHandler()
    assert "Traceback" not in handler.format(record) and "\n" not in handler.format(record)


def test_a_server_error_keeps_its_traceback():
    from stormwater.web.logfilters import ClientErrorsOneLine

    try:
        raise RuntimeError("boom")
    except RuntimeError:
        import sys

        record = logging.LogRecord("django.request", logging.ERROR, __file__, 1, "Internal Server Error: /x", (),
                                   sys.exc_info())
    record.status_code = 500
    assert ClientErrorsOneLine().filter(record) and record.exc_info is not None
