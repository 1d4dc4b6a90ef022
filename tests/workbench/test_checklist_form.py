"""Issue 16 "Forms": a checklist section's save refused (§ 380-12 A(1) marked not applicable without the reason)
comes back as the checklist page (400) with every value typed in the section kept and the error at the field, the
error summary linking to it; nothing is recorded (it was a flash at the top after a redirect, the section empty)."""
import re

from stormwater.workbench.models import ItemFinding

from .conftest import reviewing  # noqa: F401


def _tag(page: str, tag: str, fid: str) -> str:
    m = re.search(r'<%s[^>]*id="%s"[^>]*>' % (tag, re.escape(fid)), page)
    assert m, f"no {tag} #{fid}"
    return m.group(0)


def test_a_refused_section_keeps_what_was_typed_and_marks_the_field(client_for, personas, reviewing):  # noqa: F811
    c = client_for(personas["staff"])
    url = f"/permits/{reviewing.case.number}/workbench/swmp/record/"
    n = ItemFinding.objects.count()
    r = c.post(url, {"f-380-12 A(1)": "not_applicable", "reason-380-12 A(1)": " ", "page-380-12 A(1)": "12",
                     "condition-380-12 A(1)": "Show the outfall on sheet C-3", "f-380-12 A(2)": "provided"})
    assert r.status_code == 400 and ItemFinding.objects.count() == n
    page = r.content.decode()
    fid = "id_reason-380-12-A-1"
    assert 'aria-invalid="true"' in _tag(page, "input", fid) and f'id="{fid}_error"' in page
    assert f'href="#{fid}"' in page and "say why the item is not applicable" in page
    assert "§ 380-12 A(1): § 380-12 A(1)" not in page  # the summary names the paragraph once (label, then message)
    assert 'value="12"' in _tag(page, "input", "id_page-380-12-A-1")
    assert 'value="Show the outfall on sheet C-3"' in _tag(page, "input", "id_condition-380-12-A-1")
    assert '<option value="not_applicable" selected>' in page and '<option value="provided" selected>' in page
    r = c.post(url, {"f-380-12 A(1)": "not_applicable", "reason-380-12 A(1)": "No outfall on this site",
                     "f-380-12 A(2)": "provided"})
    assert r.status_code == 302 and ItemFinding.objects.count() == n + 2


def _crumbs(page: str) -> list[str]:
    nav = re.search(r'<nav class="crumbs"[^>]*>(.*?)</nav>', page, re.S)
    assert nav, "no breadcrumbs"
    return re.findall(r"<li>(.*?)</li>", nav.group(1))


def test_a_refused_section_keeps_the_breadcrumbs_of_the_page(client_for, personas, reviewing):  # noqa: F811
    """Issue 16: after a refused save the breadcrumbs end in the checklist's own name as on the first visit (they
    ended in "Record", the URL the section posts to)."""
    c = client_for(personas["staff"])
    page = f"/permits/{reviewing.case.number}/workbench/swmp/"
    first = _crumbs(c.get(page).content.decode())
    r = c.post(page + "record/", {"f-380-12 A(1)": "not_applicable", "reason-380-12 A(1)": " "})
    assert r.status_code == 400
    again = _crumbs(r.content.decode())
    assert again == first and "Record" not in again[-1]
