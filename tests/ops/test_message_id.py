"""The outbox's Message-ID (issue 28): with DEFAULT_FROM_EMAIL in the display-name form docs/deploy.md shows
(``Longmeadow DPW Stormwater <stormwater@longmeadow.example>``) it carried a double ``>`` (``…@longmeadow.example>>``),
an id staff could not find in the mail log."""
from __future__ import annotations

import re

import pytest

from stormwater.notices.services import _message_id

ID = re.compile(r"^<[0-9a-f]{32}\.notice@([A-Za-z0-9.-]+)>$")


@pytest.mark.parametrize("sender, domain", [
    ("Longmeadow DPW Stormwater <stormwater@longmeadow.example>", "longmeadow.example"),
    ("stormwater@longmeadow.example", "longmeadow.example"),
    ('"DPW, Stormwater" <dpw@Town.Longmeadow.MA.US>', "Town.Longmeadow.MA.US"),
    ("no-address-here", "localhost"),
])
def test_the_message_id_is_one_angle_bracketed_id_at_the_senders_domain(settings, sender, domain):
    settings.DEFAULT_FROM_EMAIL = sender
    got = _message_id()
    assert ID.match(got) and ID.match(got).group(1) == domain, got
