"""Shared for the review tests: the shipped example plan and small plan variants."""
from __future__ import annotations

import copy

import pytest
import yaml
from review_fixtures import EXAMPLE


@pytest.fixture(scope="session")
def example_text() -> str:
    return EXAMPLE.read_text(encoding="utf-8")


@pytest.fixture
def example_data(example_text) -> dict:
    return copy.deepcopy(yaml.safe_load(example_text))
