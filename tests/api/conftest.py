"""Fixtures of the API contract tests: a filed permit (the clock that an extension extends)."""
from __future__ import annotations

from datetime import date

import pytest

from permits.conftest import _media, complete_package, draft  # noqa: F401 - fixtures shared with the permit tests


@pytest.fixture
def filed(draft, personas, at):  # noqa: F811
    from stormwater.permits import services as sv

    at(date(2026, 3, 2))
    complete_package(draft, personas["staff"])
    sv.permit_file(application=draft, acting_user=personas["owner"])
    return draft
