"""Issue 30: the permit page shows labels, never stored values — the applicability outcome ("not_required"), the
timeline's statuses and kinds of event ("under_review", "clock.start")."""
from __future__ import annotations

import re
from datetime import date

from stormwater.permits import services as sv
from stormwater.permits.models import PermitApplication

from .conftest import complete_package

RAW = re.compile(r"\b[A-Za-z]+[_.][a-z][a-z_]*\b")


def visible_text(html: str) -> str:
    html = re.sub(r"<(script|style|template)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"<[^>]+>", " ", html)


def raw_words(html: str) -> list[str]:
    # file names as uploaded ("om_plan.pdf") and addresses ("longmeadow.ma.us") are not stored values
    text = re.sub(r"\S+\.(pdf|png|jpe?g|us|com|org|gov)\b", " ", visible_text(html))
    return sorted(set(RAW.findall(text)))


def test_the_permit_page_shows_the_applicability_and_timeline_labels(draft, personas, at, client_for):
    at(date(2026, 3, 2))
    complete_package(draft, personas["staff"])
    sv.permit_file(application=draft, acting_user=personas["owner"])
    det = dict(draft.determination, outcome="not_required")
    PermitApplication.objects.filter(pk=draft.pk).update(determination=det)
    html = client_for(personas["director"]).get(f"/permits/{draft.case.number}/").content.decode()
    assert "No permit is required" in visible_text(html)
    assert raw_words(html) == [], raw_words(html)
