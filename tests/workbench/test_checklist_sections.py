"""Issue 16 "Forms": the workbench checklist was one 9,435 px form of 301 inputs with one small save button at
the bottom. Now each section (a group of the checklist) is its own form with its own save button, and what is
typed is kept in the browser as it is typed (autosave) until that section is recorded."""
import re

from stormwater.workbench import catalog

from .conftest import reviewing  # noqa: F401


def test_each_section_is_its_own_form_with_its_own_button(client_for, personas, reviewing):  # noqa: F811
    page = client_for(personas["staff"]).get(f"/permits/{reviewing.case.number}/workbench/swmp/").content.decode()
    groups = [e for e in catalog.entries_of("swmp") if not e.is_item]
    forms = re.findall(r'<form[^>]*action="[^"]*/workbench/swmp/record/"[^>]*>(.*?)</form>', page, re.S)
    assert len(groups) > 1 and len(forms) >= len(groups)
    assert all("<button" in f and f.count('name="f-') <= 60 for f in forms)
    assert all("data-autosave" in m for m in re.findall(r'<form[^>]*/workbench/swmp/record/"[^>]*>', page))
    assert re.search(r'<script[^>]*src="[^"]*workbench/checklist\.js"', page)
    every = sum(f.count('name="f-') for f in forms)
    assert every == len([e for e in catalog.entries_of("swmp") if e.is_item])  # no row lost in the split
