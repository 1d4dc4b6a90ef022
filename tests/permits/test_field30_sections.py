"""Issue 30: the permit page's sections fold — each section's body in a <details> (open as the page is served, so a
desktop reader and a contents link see it all) whose <summary> holds the section's heading: native keyboard and
screen-reader behaviour, no script."""
import re


def _sections(page):
    return re.findall(r'<section[^>]*\sid="([^"]+)"[^>]*>\s*(<[^>]*>)\s*(<[^>]*>)\s*<h2', page)


def test_every_section_of_the_permit_page_folds_open(client_for, personas, reviewing):
    page = client_for(personas["director"]).get(f"/permits/{reviewing.case.number}/").content.decode()
    all_ids = re.findall(r'<section[^>]*\sid="([^"]+)"', page)
    folded = {sid: (a, b) for sid, a, b in _sections(page)}
    assert len(all_ids) >= 10
    assert [s for s in all_ids if s not in folded] == [], "sections whose heading is not a <summary> in a <details>"
    for sid, (details, summary) in folded.items():
        assert re.fullmatch(r'<details class="fold"[^>]*\sopen>', details), (sid, details)
        assert summary == "<summary>", (sid, summary)
    assert page.count('<details class="fold"') == page.count("<summary><h2") == len(all_ids)
