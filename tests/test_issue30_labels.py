"""Issue 30: stored values have labels people read — a timeline event's kind and statuses, an import's kind, the
applicability outcome (no database needed)."""
from __future__ import annotations

from stormwater.cases.models import Case, CaseEvent
from stormwater.imports.models import ImportRecord
from stormwater.rules.applicability import Outcome


def test_event_kind_and_status_labels():
    e = CaseEvent(case=Case(kind="abatement"), kind="clock.start", from_status="under_review",
                  to_status="granted_part")
    assert e.kind_label == "Clock started"
    assert e.to_label == "Granted in part" and "_" not in e.from_label
    assert CaseEvent(case=Case(kind="abatement"), kind="as_built.accepted").kind_label == "As-built accepted"
    assert CaseEvent(case=Case(kind="abatement"), kind="plan_on_site").kind_label == "Plan on site"


def test_import_kind_and_outcome_labels():
    assert ImportRecord(kind="water_sewer_accounts").kind_label == "Water/sewer accounts"
    assert Outcome.NOT_REQUIRED.label == "No permit is required"
