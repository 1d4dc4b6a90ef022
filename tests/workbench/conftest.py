"""Fixtures for the workbench: the permit fixtures (draft, frozen clock, uploads) and a file under review."""
from __future__ import annotations

import re
import subprocess
from datetime import date

import pytest

from permits.conftest import _media, complete_package, draft, pdf_upload  # noqa: F401  (fixtures re-used; at() is in tests/conftest.py)


def pdf_text(content: bytes) -> str:
    assert content.startswith(b"%PDF-")
    r = subprocess.run(["pdftotext", "-layout", "-", "-"], input=content, capture_output=True, check=True)
    return re.sub(r"\s+", " ", r.stdout.decode())


@pytest.fixture
def filed(draft, personas, at):  # noqa: F811
    from stormwater.permits import services as sv

    at(date(2026, 3, 2))
    complete_package(draft, personas["staff"])
    sv.permit_file(application=draft, acting_user=personas["owner"])
    return draft


@pytest.fixture
def reviewing(filed, personas, at):  # noqa: F811
    from stormwater.permits import services as sv

    at(date(2026, 3, 6))
    sv.permit_determine_complete(application=filed, acting_user=personas["staff"])
    return filed
