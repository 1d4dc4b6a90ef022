"""Checks for issue 16 "Forms" (done when: "a refused staff form keeps every typed value and marks the field"),
shared by the apps' tests/<app>/test_refused_forms.py: the answer to a refused hand-written form is its page
again (400) with the posted form as it was sent, the refused input marked and described, a summary linking to it.
Reads the HTML with the standard library's parser (no regular expressions over markup)."""
from __future__ import annotations

from html.parser import HTMLParser

TOKENS = {"csrfmiddlewaretoken", "submit_token"}


class _Forms(HTMLParser):
    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.forms: list[dict] = []
        self._form: dict | None = None
        self._textarea: dict | None = None
        self._select: dict | None = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = {k: (v if v is not None else "") for k, v in attrs}
        if tag == "form":
            self._form = {"attrs": a, "fields": [], "html_ids": set(), "summary": []}
            self.forms.append(self._form)
            return
        if self._form is None:
            return
        if "id" in a:
            self._form["html_ids"].add(a["id"])
        if tag in ("input", "textarea", "select"):
            f = {"tag": tag, "attrs": a, "text": "", "selected": []}
            self._form["fields"].append(f)
            if tag == "textarea":
                self._textarea = f
            if tag == "select":
                self._select = f
        if tag == "option" and self._select is not None and "selected" in a:
            self._select["selected"].append(a.get("value", ""))
        if tag == "a" and a.get("href", "").startswith("#"):
            self._form["summary"].append(a["href"][1:])

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None
        if tag == "textarea":
            self._textarea = None
        if tag == "select":
            self._select = None

    def handle_data(self, data):
        if self._textarea is not None:
            self._textarea["text"] += data


def form_posting_to(html: str, action: str, posted: dict | None = None, **hidden) -> dict:
    """The form in ``html`` posting to ``action`` and holding the hidden inputs ``hidden`` (of several, the one whose
    hidden inputs agree with ``posted`` and that has an input marked refused)."""
    found = []
    for f in _Forms(html).forms:
        if f["attrs"].get("action", action) != action:  # a form with no action posts to its page
            continue
        values = {x["attrs"].get("name"): x["attrs"].get("value") for x in f["fields"]
                  if x["attrs"].get("type") == "hidden" and x["attrs"].get("name") not in TOKENS}
        if not all(values.get(k) == str(v) for k, v in hidden.items()):
            continue
        if posted and any(k in posted and posted[k] != v for k, v in values.items()):
            continue
        found.append(f)
    if not found:
        raise AssertionError(f"no form posting to {action} {hidden or ''}")
    marked = [f for f in found if any(x["attrs"].get("aria-invalid") for x in f["fields"])]
    return (marked or found)[0]


def field(form: dict, name: str) -> dict:
    for x in form["fields"]:
        if x["attrs"].get("name") == name and x["attrs"].get("type") != "hidden":
            return x
    raise AssertionError(f"no input {name!r} in the form")


def value(x: dict):
    """What the input shows: a text input's value, a textarea's text, a select's chosen values, a box's check."""
    kind = x["attrs"].get("type", "")
    if x["tag"] == "textarea":
        return x["text"].removeprefix("\n")  # HTML drops a textarea's first newline (Django writes one)
    if x["tag"] == "select":
        return x["selected"]
    if kind in ("checkbox", "radio"):
        return "checked" in x["attrs"]
    return x["attrs"].get("value")


def assert_refused(response, action: str, posted: dict, refused: str, *, hidden: dict | None = None,
                   skip: tuple = ()) -> dict:
    """``response`` is the page again (400) with the form posting to ``action`` holding every value of ``posted``
    (a select's value chosen, a checkbox "1"/"on" checked) except ``skip`` (files, hidden), the input ``refused``
    marked ``aria-invalid`` and described by its error, which the summary links to. → the form."""
    assert response.status_code == 400, (response.status_code, response.get("Location"))
    html = response.content.decode()
    form = form_posting_to(html, action, posted, **(hidden or {}))
    for name, sent in posted.items():
        if name in skip or name in (hidden or {}):
            continue
        x = field(form, name)
        shown = value(x)
        if x["tag"] == "select":
            assert shown == [sent], (name, shown, sent)
        elif x["attrs"].get("type") in ("checkbox", "radio"):
            assert shown, (name, "not checked")
        else:
            assert (shown or "") == sent, (name, shown, sent)  # Django leaves out an empty value=""
    x = field(form, refused)
    assert x["attrs"].get("aria-invalid") == "true", (refused, x["attrs"])
    err = x["attrs"]["id"] + "_error"
    assert err in x["attrs"].get("aria-describedby", "").split(), x["attrs"]
    assert f'class="field-error" id="{err}"' in html  # a span (web.refill) or a Django form's <p>
    assert f'href="#{x["attrs"]["id"]}"' in html  # the error summary (in the form or atop the page) links to it
    assert 'class="error-summary"' in html
    return form
