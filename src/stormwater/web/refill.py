"""A refused hand-written form, shown again as it was sent (issue 16 "Forms": every staff form re-renders with what
was typed and the error at the field, the GOV.UK pattern of ``web/_form.html``).

Most of a record page's row forms (record the rainfall, a notice of violation, a surety, an easement, a BMP…) are
a few inputs written in the page's template, posting to a URL of their own that runs one service and goes back to
the page. When the service refuses, ``web.postdata.refused`` renders the page again and hands its HTML to
``refill``, which finds the form that was posted (by its action, and its hidden inputs when several forms post to
one URL), puts every posted value back into its inputs, selects and text areas, marks the refused input
(``aria-invalid``, the message at the field tied by ``aria-describedby``, as Django's bound fields are) and puts
an error summary linking to it at the top of the form. This is the technique of Perl's HTML::FillInForm and
FormEncode's htmlfill, on the standard library's HTML tokenizer: the page's own markup is kept byte for byte
except the tags it changes. Passwords and files are never put back; hidden inputs (the CSRF and submit tokens)
stay as the fresh page made them.
"""
from __future__ import annotations

from dataclasses import dataclass, field as dc_field
from html import escape
from html.parser import HTMLParser
from urllib.parse import urlsplit

from django.http import QueryDict

# Inputs whose typed text is put back (``type`` missing means text).
TEXTUAL = {"", "text", "date", "datetime-local", "time", "month", "week", "number", "email", "tel", "url",
           "search", "color", "range"}
TOKENS = {"csrfmiddlewaretoken", "submit_token"}  # hidden inputs a fresh page makes anew: never compared


@dataclass
class _Tag:
    name: str
    attrs: list[tuple[str, str | None]]
    start: int
    end: int  # offset just past the start tag's ">"
    close: int | None = None  # a textarea's or label's "</…>" offset
    text: list[str] = dc_field(default_factory=list)  # a label's text

    def get(self, key: str, default: str = "") -> str:
        for k, v in self.attrs:
            if k == key:
                return v if v is not None else ""
        return default


@dataclass
class _Form:
    tag: _Tag
    fields: list[_Tag] = dc_field(default_factory=list)  # input, select, option, textarea in document order
    labels: list[_Tag] = dc_field(default_factory=list)
    details: list[_Tag] = dc_field(default_factory=list)  # the <details> it sits in (opened when it is refused)


class _Scan(HTMLParser):
    """Start offsets of the forms, their fields and labels (the tokenizer gives line and column)."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.lines = [0]
        for i, ch in enumerate(html):
            if ch == "\n":
                self.lines.append(i + 1)
        self.forms: list[_Form] = []
        self._form: _Form | None = None
        self._open: list[_Tag] = []  # open textarea / label / option of the current form
        self._details: list[_Tag] = []  # open <details> elements
        self.feed(html)
        self.close()

    def _offset(self) -> int:
        line, col = self.getpos()
        return self.lines[line - 1] + col

    def handle_starttag(self, tag, attrs):
        start = self._offset()
        text = self.get_starttag_text() or ""
        t = _Tag(tag, attrs, start, start + len(text))
        if tag == "details":
            self._details.append(t)
        if tag == "form":
            self._form = _Form(t, details=list(self._details))
            self.forms.append(self._form)
            return
        if self._form is None:
            return
        if tag in ("input", "select", "option", "textarea"):
            self._form.fields.append(t)
        if tag == "label":
            self._form.labels.append(t)
        if tag in ("textarea", "label", "option"):
            self._open.append(t)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if self._open and self._open[-1].name == tag:
            self._open.pop()

    def handle_endtag(self, tag):
        if tag == "details" and self._details:
            self._details.pop()
        if tag == "form":
            self._form, self._open = None, []
            return
        for i in range(len(self._open) - 1, -1, -1):
            if self._open[i].name == tag:
                self._open[i].close = self._offset()
                del self._open[i:]
                break

    def handle_data(self, data):
        for t in self._open:
            if t.name in ("label", "option"):
                t.text.append(data)


def _path(action: str, page: str) -> str:
    return urlsplit(action).path or page if action else page


def _start_tag(t: _Tag, attrs: list[tuple[str, str | None]]) -> str:
    out = [f"<{t.name}"]
    for k, v in attrs:
        out.append(f" {k}" if v is None else f' {k}="{escape(v)}"')
    return "".join(out) + ">"


def _set(attrs: list, key: str, value: str | None) -> list:
    """``attrs`` with ``key`` set (``value`` None: a boolean attribute) or removed (``value`` False)."""
    kept = [(k, v) for k, v in attrs if k != key]
    if value is False:
        return kept
    return kept + [(key, value)]


def _choose(forms: list[_Form], *, action: str, page: str, data: QueryDict) -> _Form | None:
    """The form that was posted: its action is the posted URL and its hidden inputs hold what was posted (several
    row forms may post to one URL, told apart by a hidden id); of those, the one with most of the posted names."""
    best, score = None, -1
    for f in forms:
        if f.tag.get("method").lower() != "post" or _path(f.tag.get("action"), page) != action:
            continue
        names = {t.get("name") for t in f.fields if t.get("name")}
        hidden = [t for t in f.fields if t.name == "input" and t.get("type").lower() == "hidden"
                  and t.get("name") and t.get("name") not in TOKENS]
        if any(t.get("value") not in data.getlist(t.get("name")) for t in hidden):
            continue
        s = len(names & set(data.keys()))
        if s > score:
            best, score = f, s
    return best


def _label(form: _Form, target: _Tag) -> str:
    fid = target.get("id")
    for lab in form.labels:
        if fid and lab.get("for") == fid or lab.start < target.start and (lab.close or 0) > target.start:
            text = " ".join("".join(lab.text).split())
            if text:
                return text
    return target.get("name").replace("_", " ").capitalize()


def refill(html: str, *, action: str, page: str, data: QueryDict, field: str | None, message: str) -> str | None:
    """``html`` (a page) with the form posted to ``action`` filled with ``data`` and the refusal ``message`` at the
    input named ``field`` (or at the top of the form when it names none that the form has). ``page`` is the page's
    own path (a form with no action posts there). None when the page has no such form: the caller then says it
    the old way (a message at the top)."""
    form = _choose(_Scan(html).forms, action=action, page=page, data=data)
    if form is None:
        return None
    edits: list[tuple[int, int, str]] = []
    seen: dict[str, int] = {}
    select_values: list[str] | None = None
    targets = [t for t in form.fields if field and t.name != "option" and t.get("name") == field
               and t.get("type").lower() not in ("hidden", "submit", "button", "image", "reset")]
    first = targets[0] if targets else None
    err_id = ""
    if first is not None:
        if not first.get("id"):
            first.attrs = _set(first.attrs, "id", f"refused-{field}")
        err_id = f"{first.get('id')}_error"
    for t in form.fields:
        name, kind = t.get("name"), t.get("type").lower()
        attrs = list(t.attrs)
        if t.name == "select":
            select_values = data.getlist(name) if name in data else None
        elif t.name == "option":
            if select_values is not None:
                value = t.get("value", None) if any(k == "value" for k, _ in t.attrs) else "".join(t.text).strip()
                attrs = _set(attrs, "selected", None if value in select_values else False)
        elif t.name == "input" and kind in ("checkbox", "radio"):
            attrs = _set(attrs, "checked", None if t.get("value", "on") in data.getlist(name) else False)
        elif t.name == "input" and kind in TEXTUAL and name in data:
            k = seen[name] = seen.get(name, -1) + 1
            values = data.getlist(name)
            attrs = _set(attrs, "value", values[k] if k < len(values) else "")
        elif t.name == "textarea" and name in data and t.close is not None:
            edits.append((t.end, t.close, escape(data.get(name, ""))))
        if t in targets:
            attrs = _set(attrs, "aria-invalid", "true")
            attrs = _set(attrs, "aria-describedby", " ".join(filter(None, [t.get("aria-describedby"), err_id])))
        if t is first:
            # The message at the field (a span: the input may sit inside its label, where a block would not do).
            edits.append((t.start, t.start, f'<span class="field-error" id="{err_id}">{escape(message)}</span> '))
        if attrs != t.attrs or t is first:
            edits.append((t.start, t.end, _start_tag(t, attrs)))
    if first is not None:
        item = f'<a href="#{escape(first.get("id"))}">{escape(_label(form, first))}: {escape(message)}</a>'
    else:
        item = escape(message)
    summary = ('<div class="error-summary" role="alert" aria-labelledby="error-summary-title" tabindex="-1" '
               'id="error-summary" data-refused><h2 id="error-summary-title">There is a problem</h2>'
               f"<ul><li>{item}</li></ul></div>")
    edits.insert(0, (form.tag.end, form.tag.end, summary))
    for d in form.details:  # a form folded away in a <details> is shown open
        if not any(k == "open" for k, _ in d.attrs):
            edits.append((d.start, d.end, _start_tag(d, d.attrs + [("open", None)])))
    out, pos = [], 0
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1] != e[0])):
        out.append(html[pos:start])
        out.append(text)
        pos = max(pos, end)
    out.append(html[pos:])
    return "".join(out)
