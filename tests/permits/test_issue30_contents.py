"""Issue 30: the permit page (5,800 px tall for the Director) opens with a contents list — a nav with an
aria-label, before the first section — whose links reach every section of the page and the decision form, each
link's target an element with that id (plain anchors: no script needed)."""
import re


def _contents(page):
    m = re.search(r'<nav class="contents" aria-label="([^"]+)">(.*?)</nav>', page, re.S)
    assert m, "no contents list"
    return m.start(), m.group(1), re.findall(r'href="#([^"]+)"', m.group(2))


def _check(page):
    start, label, targets = _contents(page)
    assert label and start < page.index("<section")
    ids = set(re.findall(r'\sid="([^"]+)"', page))
    assert [t for t in targets if t not in ids] == [], "contents links to nothing"
    sections = re.findall(r'<section[^>]*\sid="([^"]+)"', page)
    assert [s for s in sections if s not in targets] == [], "sections the contents list does not reach"
    return targets


def test_the_directors_page_lists_every_section_and_the_decision_form(client_for, personas, reviewing):
    page = client_for(personas["director"]).get(f"/permits/{reviewing.case.number}/").content.decode()
    targets = _check(page)
    assert "decide" in targets and "people" in targets


def test_the_owners_page_lists_every_section(client_for, personas, reviewing):
    page = client_for(personas["owner"]).get(f"/permits/{reviewing.case.number}/").content.decode()
    targets = _check(page)
    assert "decide" not in targets  # no decision form for the applicant: no link to one
