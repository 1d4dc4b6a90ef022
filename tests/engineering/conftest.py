"""Engineering tests: plain functions, no database. Oracle values come from the published sources;
the steering repository's reference folder (../shared/reference) is read when present, else skipped."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED_REFERENCE = REPO / ".." / "shared" / "reference"


@pytest.fixture
def reference() -> Path:
    if not SHARED_REFERENCE.is_dir():
        pytest.skip("../shared/reference is not present (oracle files live outside the repository)")
    return SHARED_REFERENCE


@pytest.fixture
def test_cases(reference) -> dict:
    return json.loads((reference / "engineering" / "test_cases.json").read_text())


@pytest.fixture
def worked_examples(reference) -> list[dict]:
    import csv

    with open(reference / "tr55" / "tr55_worked_examples_published_answers.csv", newline="") as f:
        return list(csv.DictReader(f))
