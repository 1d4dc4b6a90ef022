"""Issue 31: MassDEP's per-BMP TSS credits ship as reference data and fill the Standard 4 worksheet.

Variants of the shipped example (docs/examples/commercial-5-acre.yaml) with no stated
``tss_removal_pct``: P1 (parking, 2.2 ac impervious) → SEP-1 (oil/grit separator) → FB-1 (sediment
forebay) → BASIN-1 → DP1. The rates are read from the shipped CSV; each condition is the one the
Handbook fact sheet states (engineering/data/massdep_tss_credits.csv).
"""
from __future__ import annotations

import pytest

from stormwater.engineering import massdep_tss
from stormwater.review.engine import review_compute
from stormwater.review.plan import Bmp, plan_from_dict
from stormwater.review.quality import handbook_tss_credit, tss_credit


def _std(r, key):
    return next(s for s in r["standards"] if s["key"] == key)


def _train(data, basin_type: str, head: str = "SEP-1"):
    """P1 → [CB-1 →] SEP-1 → FB-1 → BASIN-1 with no credits stated; the trench is taken out."""
    next(s for s in data["post"] if s["id"] == "P1")["to"] = head
    bmps = {b["id"]: b for b in data["bmps"]}
    del bmps["TRENCH-1"]
    for b in bmps.values():
        b.pop("tss_removal_pct", None)
    bmps["SEP-1"]["to"] = "FB-1"
    bmps["BASIN-1"]["type"] = basin_type
    data["bmps"] = [*bmps.values(), {"id": "FB-1", "type": "sediment_forebay", "to": "BASIN-1"}]
    if head != "CB-1":
        data["bmps"] = [b for b in data["bmps"] if b["id"] != "CB-1"]
    return data


def _rate(bmp_type: str) -> float:
    return massdep_tss.credit_for(bmp_type).tss_removal_pct / 100.0


def test_the_shipped_credits_name_their_source_and_condition():
    rows = massdep_tss.credits()
    assert {"sediment_forebay", "extended_dry_detention_basin", "wet_basin", "oil_grit_separator"} <= set(rows)
    for c in rows.values():
        assert c.source_url.startswith("http") and c.quote and c.condition and "Handbook" in c.handbook_ref
        assert str(int(c.tss_removal_pct)) + "%" in c.quote.replace(" %", "%")   # the quote carries the number
    # what the stored text did not give is not shipped (never a number from memory)
    assert massdep_tss.credit_for("deep_sump_catch_basin") is None
    assert massdep_tss.credit_for("infiltration_basin") is None


@pytest.mark.parametrize("basin_type, expect", [("extended_dry_detention_basin", "fail"), ("wet_basin", "pass")])
def test_unstated_credits_come_from_the_handbook_and_the_train_multiplies_them(example_data, basin_type, expect):
    r = review_compute(plan_from_dict(_train(example_data, basin_type)))
    tss = _std(r, "ma_std4_tss")
    p1 = next(t for t in tss["numbers"]["trains"] if t["subcatchment"] == "P1")
    assert p1["bmps"] == ["SEP-1", "FB-1", "BASIN-1"] and not p1["missing"]
    a = _rate("oil_grit_separator")            # pretreats FB-1
    b = 0.0                                    # forebay of a basin: "No separate credit is given"
    assert "sediment_forebay" in massdep_tss.credits() and basin_type in massdep_tss.FOREBAY_INCLUDED_IN
    c = _rate(basin_type)                      # with forebay FB-1 draining into it
    assert p1["removal_pct"] == pytest.approx(100 * (1 - (1 - a) * (1 - b) * (1 - c)), abs=0.05)
    assert tss["status"] == expect and tss["provisional"] is True
    assert any("massdep_tss_credits.csv" in s for s in tss["sources"])
    by_bmp = {row["bmp"]: row for row in p1["rows"]}
    assert by_bmp["FB-1"]["rate"] == 0 and "no separate credit" in by_bmp["FB-1"]["source"]
    assert "megamanual.geosyntec.com" in by_bmp["BASIN-1"]["source"]
    assert "oilgritseparators" in by_bmp["SEP-1"]["source"]


def test_catch_basin_forebay_infiltration_basin_stays_not_assessable_without_stated_credits(example_data):
    """No credit ships for a deep sump catch basin or an infiltration basin, and the forebay in front of
    an infiltration basin gets none: the worksheet says which BMPs need a stated credit."""
    data = _train(example_data, "infiltration_basin", head="CB-1")
    basin = next(b for b in data["bmps"] if b["id"] == "BASIN-1")
    basin.update(infiltration_rate_in_hr=1.0, bottom_area_sqft=11900)
    next(b for b in data["bmps"] if b["id"] == "CB-1")["to"] = "SEP-1"
    r = review_compute(plan_from_dict(data))
    tss = _std(r, "ma_std4_tss")
    p1 = next(t for t in tss["numbers"]["trains"] if t["subcatchment"] == "P1")
    assert tss["status"] == "not_assessable" and set(p1["missing"]) == {"CB-1", "BASIN-1"}
    assert _std(r, "ma_std4_pretreatment_BASIN-1")["status"] == "not_assessable"


def test_conditions_hold_or_the_credit_is_withheld():
    edd = Bmp(id="B", type="extended_dry_detention_basin", to="DP1")
    rate, why = handbook_tss_credit(edd, {"B": edd})
    assert rate is None and "needs a sediment forebay" in why
    ogs = Bmp(id="S", type="oil_grit_separator", to="DP1")          # last in the train: not pretreatment
    assert handbook_tss_credit(ogs, {"S": ogs})[0] == 0.0
    stated = Bmp(id="S", type="oil_grit_separator", to="DP1", tss_removal_pct=30)
    assert tss_credit(stated, {}, {"S": stated})[0] == pytest.approx(0.30)   # the plan's own credit wins
    dw = Bmp(id="W", type="dry_well", to="DP1")
    assert handbook_tss_credit(dw, {"W": dw})[0] is None
