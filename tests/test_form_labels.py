"""Issue 16 "Forms": visible labels — no input whose only label is its placeholder (or an aria-label a
sighted person never sees). Every text input in a template is inside a <label> or named by a <label for>.
The templates not yet converted are listed (and shrink); a new one cannot join them."""
import re
from pathlib import Path

import pytest

TEMPLATES = Path(__file__).resolve().parents[1] / "src" / "stormwater" / "templates"
NOT_YET: set[str] = set()  # every template converted (issue 16); a new placeholder-only input fails below


def unlabelled(text: str) -> list[str]:
    out = []
    fors = set(re.findall(r'<label[^>]*\bfor="([^"]+)"', text))
    for m in re.finditer(r"<input\b[^>]*>", text):
        tag = m.group(0)
        if re.search(r'type="(hidden|submit|button|checkbox|radio|file)"', tag) or "placeholder=" not in tag:
            continue
        before = text[:m.start()]
        inside = before.rfind("<label") > before.rfind("</label>")
        ident = re.search(r'\bid="([^"]+)"', tag)
        if not inside and not (ident and ident.group(1) in fors):
            out.append(tag)
    return out


@pytest.mark.parametrize("path", sorted(str(p.relative_to(TEMPLATES)) for p in TEMPLATES.rglob("*.html")))
def test_no_input_is_labelled_only_by_its_placeholder(path):
    bad = unlabelled((TEMPLATES / path).read_text())
    if path in NOT_YET:
        assert bad, f"{path} is converted: take it off NOT_YET"
        return
    assert not bad, f"{path}: inputs with only a placeholder for a label: {bad}"
