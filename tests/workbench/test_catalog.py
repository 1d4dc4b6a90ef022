"""Every item of Ch. 380 § 380-11 B–C, § 380-12 and § 380-13 is in the checklist data, cited by its
paragraph — checked against the regulation text's own enumerations, read afresh by ``regtext``."""
from __future__ import annotations

import re

import pytest

from stormwater.workbench import catalog

from .regtext import expected_paragraphs, sections


def _norm(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", s.lower()).strip()


def compare(entries, expected) -> tuple[set, set]:
    """(paragraphs of the text missing from the data, data rows citing a paragraph the text lacks)."""
    have = {e.para for e in entries if not e.supplement}
    want = {p for p, _ in expected}
    return want - have, have - want


def test_the_reader_finds_the_enumerations_the_issue_names():
    paras = {p for p, _ in expected_paragraphs()}
    count = lambda prefix: len([p for p in paras if re.fullmatch(re.escape(prefix) + r"\[\d+\]", p)])  # noqa: E731
    assert count("380-12 A(3)(c)") == 8 and count("380-12 A(3)(d)") == 5 and count("380-12 A(3)(e)") == 5
    assert count("380-12 A(3)(g)") == 16 and count("380-11 B(4)(b)") == 15 and count("380-13 A(2)(c)") == 3
    assert {f"380-12 A(3)(e)[5][{c}]" for c in "abcdefghi"} <= paras
    assert {f"380-12 A(3)({c})" for c in "abcdefg"} <= paras
    assert {f"380-13 A(2)({c})" for c in "abcdefghijklmnopq"} <= paras
    assert {f"380-11 C(2)({c})" for c in "abcdefghijklmnop"} <= paras
    assert {f"380-11 C(3)({c})" for c in "abcdefg"} <= paras
    assert {f"380-11 B({n})" for n in range(1, 10)} <= paras
    # § 380-11 A, D and E are outside the checklists (the engineering review decides D and E).
    assert not any(p.startswith(("380-11 A", "380-11 D", "380-11 E")) for p in paras)
    assert len(sections()["380-12"]) == 58 and len(sections()["380-13"]) == 23


def test_every_paragraph_of_the_text_is_in_the_checklist_data_and_nothing_else():
    missing, unknown = compare(catalog.ENTRIES, expected_paragraphs())
    assert missing == set() and unknown == set()


def test_the_comparison_fails_when_an_item_is_dropped_or_invented():
    entries = [e for e in catalog.ENTRIES if e.para != "380-12 A(3)(g)[16]"]
    missing, _ = compare(entries, expected_paragraphs())
    assert missing == {"380-12 A(3)(g)[16]"}
    fake = catalog.Entry(checklist="swmp", kind="item", para="380-12 A(3)(g)[17]", text="x", depth=3)
    _, unknown = compare(list(catalog.ENTRIES) + [fake], expected_paragraphs())
    assert unknown == {"380-12 A(3)(g)[17]"}


def test_each_item_is_transcribed_from_its_paragraph():
    text = dict(expected_paragraphs())
    for e in catalog.ENTRIES:
        if e.supplement:
            continue
        ours = _norm(e.text.rstrip(" …"))
        assert _norm(text[e.para]).startswith(ours[:60]), e.para


def test_paragraphs_with_sub_items_are_headings_and_the_rest_are_items():
    paras = [p for p, _ in expected_paragraphs()]
    for e in catalog.ENTRIES:
        has_children = any(q != e.para and q.startswith(e.para) and q[len(e.para)] in "([" for q in paras)
        if e.para == "380-11 B(1)":  # a heading over the ten Massachusetts standards it incorporates
            assert e.kind == "group"
        elif not e.supplement:
            assert e.kind == ("group" if has_children else "item"), e.para


def test_the_ten_massachusetts_standards_and_the_swppp_alternative_name_their_source():
    stds = [e for e in catalog.ITEMS if e.para.startswith("380-11 B(1) Std ")]
    assert [e.para.split()[-1] for e in stds] == [str(n) for n in range(1, 11)]
    assert all("Stormwater Handbook" in e.source for e in stds)
    alt = catalog.BY_PARA[catalog.SWPPP_PARA]
    assert alt.is_item and "Construction General Permit" in alt.source
    assert {e.para for e in catalog.items_under("380-13 A(2)")} == {
        p for p, _ in expected_paragraphs() if p.startswith("380-13 A(2)") and p not in ("380-13 A(2)", "380-13 A(2)(c)")}


@pytest.mark.parametrize("para,keys", [("380-12 A(3)(g)[5]", ("peak_", "volume_")), ("380-11 B(8)", ("overflow_",)),
                                       ("380-12 A(3)(g)[14][c]", ("retention",))])
def test_computed_items_link_to_the_engineering_review(para, keys):
    assert catalog.BY_PARA[para].review_keys == keys


def test_keys_are_unique_and_url_safe_and_the_lid_checklist_is_the_strategies():
    assert len({e.key for e in catalog.ENTRIES}) == len(catalog.ENTRIES)
    assert all(re.fullmatch(r"[0-9A-Za-z-]+", e.key) for e in catalog.ENTRIES)
    assert catalog.BY_PARA["380-12 A(3)(e)[5][a]"].key == "380-12-A-3-e-5-a"
    lid = [e.para for e in catalog.LID_DESIGN_CHECKLIST]
    assert lid[0] == "380-11 B(4)(b)[1]" and "380-11 B(4)(b)[14]" in lid and "380-11 B(4)(b)[15][g]" in lid
