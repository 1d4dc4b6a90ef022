"""The check every refused-form test makes (issue 16 "Forms"): the page came back (400) with the posted form as it
was sent and the refusal at its input (``web.postdata.refused``). Used by tests/construction and tests/stewardship
(imported there as ``construction.refilled``: the tests folder is not a package)."""
import re
from html import escape


def refused_form(page: str, action: str) -> str:
    """The form posting to ``action`` (or, with no action, to its own page) that holds the error summary."""
    marked = [f for f in re.findall(r"<form\b[^>]*>.*?</form>", page, re.S) if 'id="error-summary"' in f]
    assert len(marked) == 1, f"{len(marked)} refused forms"
    tag = re.match(r"<form\b[^>]*>", marked[0]).group(0)
    assert f'action="{action}"' in tag or "action=" not in tag, tag
    return marked[0]


def assert_refilled(r, action: str, data: dict, field: str | None):
    """Status 400; every posted value back in its input; the refused input marked, its error at it and the summary
    linking to it; no flash message at the top."""
    assert r.status_code == 400, r.status_code
    page = r.content.decode()
    form = refused_form(page, action)
    for name, value in data.items():
        if name == "file":
            continue
        for v in value if isinstance(value, list) else [value]:
            tags = re.findall(r'<(?:input|select|textarea)[^>]*name="%s"[^>]*>' % re.escape(name), form)
            assert tags, f"no {name} in the form"
            tag = tags[0]
            if tag.startswith("<select"):
                sel = re.search(r'<select[^>]*name="%s".*?</select>' % re.escape(name), form, re.S).group(0)
                assert re.search(r'<option value="%s"[^>]*\bselected' % re.escape(v), sel), (name, v)
            elif tag.startswith("<textarea"):
                assert re.search(r'name="%s"[^>]*>%s</textarea>' % (re.escape(name), re.escape(escape(v))), form), name
            elif 'type="checkbox"' in tag:
                box = [t for t in tags if 'value="%s"' % v in t] or tags
                assert " checked" in box[0], (name, box[0])
            else:
                assert f'value="{escape(v)}"' in tag, (name, tag)
    if field is not None:
        tag = re.search(r'<(?:input|select|textarea)[^>]*name="%s"[^>]*>' % re.escape(field), form).group(0)
        fid = re.search(r'\bid="([^"]+)"', tag).group(1)
        assert 'aria-invalid="true"' in tag and f"{fid}_error" in tag, tag
        assert f'<span class="field-error" id="{fid}_error">' in form
        assert f'href="#{fid}"' in form
    assert 'class="messages"' not in page
    return form
