"""One date format and one money format on every page (issue 16 "Navigation and look").

A crawl of every staff and public page of the demo town, as each role and signed out (tests/pagecrawl.py),
reads the text people see — not form values, attributes, scripts or code samples — and finds the forms that
must not appear: ISO dates ("2026-12-02"), AP-style months ("Dec. 2"), spelled-out month dates
("December 2, 2026"), slashed dates, "p.m.", and money that is not "$1,234.56" (no separator, no cents,
three decimals, "$-5.00", "$$"). The one form comes from the ``day``/``daytime`` and ``usd`` filters
(web/templatetags/sw.py) and the date format module (stormwater/formats/)."""
from __future__ import annotations

import re
import functools
from html.parser import HTMLParser

import pytest
from pagecrawl import REFERRER, crawl, page_names

pytestmark = pytest.mark.django_db

BAD_FORMS = {
    "ISO date": re.compile(r"(?<![\w/-])\d{4}-\d{2}-\d{2}(?![\w-])"),
    "AP-style month": re.compile(r"\b(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.\s*\d{1,2}\b"),
    "spelled-out month": re.compile(r"\b(?:January|February|March|April|June|July|August|September|October|"
                                    r"November|December)\s+\d{1,2},?\s+\d{4}\b"),
    "slashed date": re.compile(r"(?<![\w/])\d{1,2}/\d{1,2}/\d{2,4}(?![\w/])"),
    "a.m./p.m.": re.compile(r"\b[ap]\.m\."),
    # A "$" before a number that is not $1,234.56: "$70761.26", "$5", "$4.4312", "$-5.00", "$ 5", "$$5".
    "money": re.compile(r"\$(?=[\s$-]*\d)(?!\d{1,3}(?:,\d{3})*\.\d{2}(?!\d))"),
}
HUMAN_DATE_IN_URL = re.compile(r"\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?(?:\s|%20|\+)+\d")
SKIP_TAGS = {"script", "style", "textarea", "code", "pre", "kbd", "samp", "template"}


class _Text(HTMLParser):
    """The text a person reads: element text outside scripts, styles, form values and code samples."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.skip = 0
        self.parts: list[str] = []
        self.machine: list[str] = []   # problems in what the browser reads: date inputs and links

    def handle_starttag(self, tag, attrs):
        if tag in SKIP_TAGS:
            self.skip += 1
        a = dict(attrs)
        if tag == "input" and a.get("type") in ("date", "datetime-local") and a.get("value"):
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?", a["value"]):
                self.machine.append(f"date input {a.get('name')!r} holds {a['value']!r}, not an ISO date")
        if tag == "a" and a.get("href") and HUMAN_DATE_IN_URL.search(a["href"]):
            self.machine.append(f"a link carries a date for people: {a['href']!r}")

    def handle_endtag(self, tag):
        if tag in SKIP_TAGS and self.skip:
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


@functools.lru_cache(maxsize=2)
def _read(html: str) -> _Text:
    """One parse of a page for both readings below (html.parser is most of the crawl's time)."""
    p = _Text()
    p.feed(html)
    p.close()
    return p


def visible_text(html: str) -> str:
    return " ".join(" ".join(_read(html).parts).split())


def machine_values(html: str) -> list[str]:
    """Dates the browser reads must stay ISO: date inputs' values and links' query strings."""
    return list(_read(html).machine)


def bad_forms(text: str) -> list[str]:
    found = []
    for what, rx in BAD_FORMS.items():
        for m in rx.finditer(text):
            found.append(f"{what}: …{text[max(0, m.start() - 40):m.end() + 25]}…")
    return found


@pytest.mark.parametrize("text,bad", [
    ("Due Dec 2, 2026 · $1,234.56 · -$12.50 · $0.00 · Wed, Dec 2, 2026, 3:05 PM · FY2027-000123 · SWP-2026-0001",
     []),
    ("Due 2026-12-02", ["ISO date"]), ("Issued Dec. 2, 2026", ["AP-style month"]), ("Sept. 15", ["AP-style month"]),
    ("December 2, 2026", ["spelled-out month"]), ("12/02/2026", ["slashed date"]), ("3:05 p.m.", ["a.m./p.m."]),
    ("$70761.26", ["money"]), ("$5 fee", ["money"]), ("$4.4312", ["money"]), ("$-5.00", ["money"]),
    ("$$1.00", ["money"]), ("Amount [$]", []),
])
def test_the_scan_finds_the_other_forms(text, bad):
    assert [f.split(":")[0] for f in bad_forms(text)] == bad


def test_the_scan_skips_form_values_and_code_but_not_dates_the_browser_reads():
    html = ('<p>Due Dec 2, 2026</p><input type="date" name="on" value="2026-12-02"><textarea>2026-12-02</textarea>'
            '<code>{"due": "2026-12-02"}</code><a href="/x/?as_of=2026-12-02">ok</a>')
    assert bad_forms(visible_text(html)) == [] and machine_values(html) == []
    broken = '<input type="date" name="on" value="Dec 2, 2026"><a href="/x/?as_of=Dec 2, 2026">x</a>'
    assert len(machine_values(broken)) == 2


def test_every_page_shows_one_date_and_one_money_format(client, look_town):
    findings, visited = [], set()
    for who, start in look_town.starts():
        client.logout()
        if who:
            client.force_login(look_town.users[who])

        def fetch(path):
            r = client.get(path, follow=True)
            if "text/html" not in r.headers.get("Content-Type", ""):
                return None
            return r.status_code, r.request["PATH_INFO"], r.content.decode()

        for path, name, status, html in crawl(fetch, start, per_name=3):
            assert status < 500, f"{who}: {path} answered {status}"
            if status == 403:  # a link to a page the person may not open: offer only what one can use
                findings.append(f"[{who}] {REFERRER.get(path)} links to {path}, which answers 403")
            visited.add(name)
            for f in bad_forms(visible_text(html)) + machine_values(html):
                findings.append(f"[{who or 'signed out'}] {path}\n    {f}")
    assert not findings, f"{len(findings)} other date/money forms on screen:\n" + "\n".join(findings[:80])
    missing = page_names() - visited - look_town.not_crawled()
    assert not missing, f"pages no crawl reached (no link leads to them?): {sorted(missing)}"
