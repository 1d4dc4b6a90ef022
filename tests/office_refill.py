"""What a refused hand-written staff form must look like (issue 16 "Forms": a refused staff form keeps every typed
value and marks the field), checked on the page the refusal answered with (``web.postdata.refused``): status 400,
the posted form with every value back in its input, select, checkbox or text area, the refused input marked
(``aria-invalid``, its message in ``<span class="field-error" id="…_error">`` tied by ``aria-describedby``) and the
form's error summary linking to it. Shared by the office apps' ``test_refused_forms.py``."""
from __future__ import annotations

import re
from html import escape


def posted_form(page: str, action: str, *, having: str | None = None) -> str:
    """The HTML of the POST form posting to ``action`` (the one holding an input named ``having`` when several do)."""
    for m in re.finditer(r'<form\b[^>]*>(?:(?!<form\b).)*?</form>', page, re.S):
        tag = m.group(0)[:m.group(0).index(">") + 1]
        a = re.search(r'\baction="([^"]*)"', tag)
        if (a.group(1) if a else "") != action and not (a is None and action == ""):
            continue
        if having and not re.search(r'name="%s"' % re.escape(having), m.group(0)):
            continue
        return m.group(0)
    raise AssertionError(f"no form posting to {action!r}" + (f" with {having!r}" if having else ""))


def field_tag(form: str, name: str) -> str:
    t = re.search(r'<(?:input|select|textarea)\b[^>]*\bname="%s"[^>]*>' % re.escape(name), form)
    assert t, f"no input {name!r} in the form"
    return t.group(0)


def assert_kept(form: str, name: str, value) -> None:
    """The input ``name`` shows ``value`` (True/False: a checkbox ticked or not)."""
    tag = field_tag(form, name)
    if isinstance(value, bool):
        assert (re.search(r"\schecked\b", tag) is not None) is value, f"{name}: {tag}"
    elif tag.startswith("<select"):
        sel = form[form.index(tag):]
        sel = sel[:sel.index("</select>")]
        opt = re.search(r'<option[^>]*value="%s"[^>]*>' % re.escape(escape(str(value))), sel)
        assert opt and re.search(r"\sselected\b", opt.group(0)), f"{name}: {value!r} not selected"
        others = [o for o in re.findall(r"<option[^>]*>", sel) if re.search(r"\sselected\b", o)]
        assert len(others) == 1, f"{name}: {others}"
    elif tag.startswith("<textarea"):
        rest = form[form.index(tag) + len(tag):]
        # (a newline right after <textarea> is not part of its value: Django's widget writes one)
        assert rest[:rest.index("</textarea>")].removeprefix("\n") == escape(str(value)), f"{name}: {rest[:80]!r}"
    elif value == "":
        assert re.search(r'\svalue="[^"]', tag) is None, f"{name}: {tag}"
    else:
        assert f'value="{escape(str(value))}"' in tag, f"{name}: {tag}"


def assert_refused(r, action: str, field: str, values: dict, *, having: str | None = None) -> str:
    """``r`` is the page again (400) with the form posting to ``action`` keeping ``values`` and ``field`` marked
    refused; → the form's HTML."""
    assert r.status_code == 400, (r.status_code, r.get("Location"))
    page = r.content.decode()
    form = posted_form(page, action, having=having or field)
    for name, value in values.items():
        assert_kept(form, name, value)
    tag = field_tag(form, field)
    assert 'aria-invalid="true"' in tag, tag
    fid = re.search(r'\bid="([^"]+)"', tag).group(1)
    assert re.search(r'aria-describedby="[^"]*\b%s_error\b' % re.escape(fid), tag), tag
    assert f'class="field-error" id="{fid}_error">' in form
    summary = re.search(r'<div class="error-summary".*?</div>', form, re.S)
    assert summary and f'href="#{fid}"' in summary.group(0), "the summary links to the refused input"
    return form
