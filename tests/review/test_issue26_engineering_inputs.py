"""Issue 26, engineering inputs (each written failing first): a NOAA PFDS file with a NaN or negative depth and a
SWMM model cut off in transfer are refused naming the line, and no review is stored."""
from __future__ import annotations

from pathlib import Path

import pytest
from dbunchanged import nothing_changed
from django.core.files.uploadedfile import SimpleUploadedFile

from stormwater.engineering.rainfall import read_pfds_csv
from stormwater.review.swmm import SwmmInputError, plan_from_inp

POST = (Path(__file__).resolve().parents[2] / "docs" / "examples" / "swmm" / "small-site-post.inp").read_text()


def _pfds_line(text: str) -> str:
    return next(ln for ln in text.splitlines() if ln.startswith("24-hr:"))


@pytest.mark.parametrize("bad", ["NaN", "-3.1"])
def test_a_pfds_file_with_a_nan_or_negative_depth_is_refused(example_data, bad):
    text = example_data["rainfall"]["pfds_csv"]
    line = _pfds_line(text)
    cells = line.split(",")
    cells[2] = bad
    with pytest.raises(ValueError, match=r"pfds: line \d+ \(24-hr\): depths must be positive.*" + bad.replace(".", r"\.")):
        read_pfds_csv(text.replace(line, ",".join(cells), 1))


def test_a_swmm_model_cut_in_half_is_refused_and_no_review_is_stored(client_for, personas):
    half = POST[: len(POST) // 2]
    assert not half.endswith("\n")
    with pytest.raises(SwmmInputError, match=r"swmm: line \d+ \(\[TIMESERIES\]\): the file ends inside"):
        plan_from_inp(half)
    c = client_for(personas["staff"])
    with nothing_changed():
        r = c.post("/reviews/import/swmm/", {"post_file": SimpleUploadedFile("half.inp", half.encode())})
    assert r.status_code == 400 and "cut off" in r.content.decode()


@pytest.mark.parametrize("cut", [1, 3])
def test_a_swmm_model_cut_anywhere_in_a_line_is_refused(cut):
    lines = POST.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith("[TIMESERIES]")) + 6  # TYPE3_10YR 0.4 0.0497
    text = "\n".join(lines[:i]) + "\n" + lines[i][: len(lines[i].rstrip()) - cut]
    with pytest.raises(SwmmInputError, match="cut off"):
        plan_from_inp(text)
    plan_from_inp("\n".join(lines[:i + 1]))  # the same rows, complete but for the final newline
