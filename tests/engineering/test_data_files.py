"""The shipped reference tables are verbatim copies of the reference folder's (plus one provenance line)."""
from __future__ import annotations

import pytest

from stormwater.engineering._tables import DATA_DIR

# Not from the reference folder: Exhibit 5 (converted, see exhibit5_convert.py), HDS-5 Table A.1 (transcribed
# rows, the source named in the file's header) and the MassDEP TSS credits (read on web pages; each row names
# its page and quote, issue 31).
NOT_COPIED = ("tr55_exhibit5_", "hds5_", "massdep_tss_credits")
COPIED = sorted(p.name for p in DATA_DIR.glob("*.csv") if not p.name.startswith(NOT_COPIED))


def test_every_data_file_names_its_source():
    for p in DATA_DIR.glob("*.csv"):
        head = [ln for ln in p.read_text().splitlines() if ln.startswith("#")]
        assert any("Source" in ln or "source" in ln for ln in head), p.name


@pytest.mark.parametrize("name", COPIED)
def test_copied_tables_match_the_reference_folder(reference, name):
    shipped = (DATA_DIR / name).read_text().splitlines()
    assert shipped[0].startswith("# Copied verbatim from the project's reference folder")
    assert shipped[1:] == (reference / "engineering" / name).read_text().splitlines()
