"""Every staff form, refused, comes back as it was sent with the error at its field (issue 16 "Forms", done when: "a
refused staff form keeps every typed value and marks the field").

A crawl of the demo town's pages (tests/pagecrawl.py), as the roles that act on most of them, finds every form that
posts (one per URL pattern of its action). Each is sent twice:
- with a date that is not one, when it has a date a person types: the answer must be the page again (400; 200
  from a Django form view) with that value back in its input, marked (aria-invalid, the message tied to it);
- with every input a person fills left blank: the act done (nothing in it was required), or the page again with
  the error summary. A refusal as a redirect with an error message at the top is the old way this issue removes;
  a 500 is a defect.
The refusals of the rules themselves are the apps' tests (tests/*/test_refused_forms.py); axe on each error state
is tests/browser/test_refused_forms_flow.py."""
from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from pagecrawl import crawl, url_name

pytestmark = pytest.mark.django_db

NOT_A_DATE = "31/02/2026"
DATE_TYPES = {"date", "datetime-local"}


class _Forms(HTMLParser):
    """The POST forms of a page: action, the values a browser would send as the page stands, the date inputs."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms: list[dict] = []
        self._f: dict | None = None
        self._select: str | None = None
        self._textarea: str | None = None
        self._noscript = 0

    def handle_starttag(self, tag, attrs):
        a = {k: (v if v is not None else "") for k, v in attrs}
        if tag == "noscript":  # what a browser with script (every user's) does not show
            self._noscript += 1
        if tag == "form":
            if a.get("method", "get").lower() == "post":
                self._f = {"action": a.get("action", ""), "data": {}, "dates": [], "first_option": {}}
                self.forms.append(self._f)
            return
        f = self._f
        if f is None:
            return
        name, kind = a.get("name"), a.get("type", "text").lower()
        if tag == "input" and name and kind not in ("submit", "button", "image", "reset", "file"):
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    f["data"].setdefault(name, []).append(a.get("value", "on"))
            else:
                f["data"].setdefault(name, []).append(a.get("value", ""))
                if kind in DATE_TYPES:
                    f["dates"].append(name)
        elif tag == "select" and name:
            self._select = name
        elif tag == "option" and self._select:
            value = a.get("value", "")
            f["first_option"].setdefault(self._select, value)
            if "selected" in a:
                f["data"].setdefault(self._select, []).append(value)
        elif (tag == "button" and name and a.get("type", "submit").lower() == "submit" and "button" not in f
              and not self._noscript):
            f["button"] = (name, a.get("value", ""))  # the first button sends its name, as a click on it does
        elif tag == "textarea" and name:
            self._textarea = name
            f["data"].setdefault(name, [""])

    def handle_endtag(self, tag):
        if tag == "noscript" and self._noscript:
            self._noscript -= 1
        if tag == "form":
            self._f = None
        elif tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data):
        if self._f is not None and self._textarea:
            self._f["data"][self._textarea][-1] += data


def post_forms(html: str) -> list[dict]:
    p = _Forms()
    p.feed(html)
    for f in p.forms:  # a select with nothing selected sends its first option
        for name, value in f.pop("first_option").items():
            f["data"].setdefault(name, [value])
        if "button" in f:
            name, value = f.pop("button")
            f["data"].setdefault(name, [value])
    return p.forms


TEXTUAL = {"text", "date", "datetime-local", "number", "email", "tel", "url", "search", "time", "month"}


def _blank(form: dict, html_names: dict) -> dict:
    return {k: ([""] if html_names.get(k) in TEXTUAL or html_names.get(k) in ("textarea", "select") else v)
            for k, v in form["data"].items() if k != "submit_token"}


class _Kinds(HTMLParser):
    """name → input type (or "textarea", "select") of every field of the page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.kinds: dict[str, str] = {}

    def handle_starttag(self, tag, attrs):
        a = {k: (v if v is not None else "") for k, v in attrs}
        if a.get("name") and tag in ("input", "textarea", "select"):
            self.kinds.setdefault(a["name"], a.get("type", "text").lower() if tag == "input" else tag)


def staff_forms(client, look_town):
    """(who, page path, page html, form) of every POST form the crawl finds as the roles that act on most pages and
    the owner (issue 27: the form fuzzer crawls as Director, inspector, Collector and owner),
    one form per URL pattern of its action."""
    out, seen = [], set()
    for who in ("director", "inspector", "collector", "owner"):
        client.logout()
        client.force_login(look_town.users[who])

        def fetch(path):
            r = client.get(path, follow=True)
            if "text/html" not in r.headers.get("Content-Type", ""):
                return None
            return r.status_code, r.request["PATH_INFO"], r.content.decode()

        for path, _name, status, html in list(crawl(fetch, ["/"], per_name=1)):
            if status != 200:
                continue
            k = _Kinds()
            k.feed(html)
            for nth, form in enumerate(post_forms(html)):
                name = url_name(form["action"] or path)
                if name in seen or name in (None, "logout", "login"):
                    continue
                seen.add(name)
                form["kinds"], form["nth"] = {n: k.kinds.get(n) for n in form["data"]}, nth
                out.append((who, path, form))
    return out


def _refused_the_old_way(client, r) -> str | None:
    if r.status_code not in (302, 303):
        return None
    nxt = client.get(r.headers["Location"])
    errors = [str(m) for m in (nxt.context or {}).get("messages", []) if m.level_tag == "error"]
    return errors[0][:100] if errors else None


def test_every_staff_form_refused_comes_back_as_it_was_sent(client, look_town):
    forms = staff_forms(client, look_town)
    findings, empty, dated = [], 0, 0
    for who, path, form in forms:
        client.logout()
        client.force_login(look_town.users[who])
        action = form["action"] or path
        fillable = [n for n, kind in form["kinds"].items() if kind in TEXTUAL | {"textarea", "select"}]
        if form["dates"]:  # a date that is not one: the page again, everything kept, the date marked
            dated += 1
            data = {k: v for k, v in form["data"].items() if k != "submit_token"}
            date_name = form["dates"][0]
            data[date_name] = [NOT_A_DATE]
            r = client.post(action, data)
            where = f"[{who}] {path} → POST {action} ({date_name}={NOT_A_DATE})"
            if r.status_code not in (200, 400):  # the page again (a Django form view answers 200)
                findings.append(f"{where}: answered {r.status_code} {_refused_the_old_way(client, r) or ''}")
            else:
                tags = re.findall(r'<input[^>]*name="%s"[^>]*>' % re.escape(date_name), r.content.decode())
                if not any(f'value="{NOT_A_DATE}"' in t and 'aria-invalid="true"' in t for t in tags):
                    findings.append(f"{where}: {r.status_code}, but the date is not sent back marked: {tags[:3]}")
        if fillable:  # sent empty: done (nothing was required), or the page again with the error summary
            empty += 1
            r = client.post(action, _blank(form, form["kinds"]))
            where = f"[{who}] {path} → POST {action} (blank: {', '.join(fillable[:6])})"
            if (old := _refused_the_old_way(client, r)) is not None:
                findings.append(f"{where}: refused as a redirect with a message at the top: {old}")
            elif r.status_code == 400 and 'class="error-summary"' not in r.content.decode():
                findings.append(f"{where}: 400 without an error summary")
            elif r.status_code not in (200, 302, 303, 400):
                findings.append(f"{where}: answered {r.status_code}")
    assert dated > 20 and empty > 60, f"the crawl found only {dated} dated forms and {empty} forms with inputs"
    assert not findings, f"{len(findings)} problems in {len(forms)} forms:\n" + "\n".join(findings)
