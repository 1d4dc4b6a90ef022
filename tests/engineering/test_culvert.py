"""Culvert outlets (FHWA HDS-5, 3rd ed. 2012), weirs with end contractions and tailwater (issue 31).

The oracle (tests/hds5_oracle.py) is written out from the HDS-5 equations (Appendix A Eq. A.1/A.3 with
the Table A.1 constants for a circular concrete pipe, square edge with headwall; chapter 3 full-flow
outlet control), with its own critical-depth solver (bisection on depth) and its own storage-indication
routing: nothing of ``stormwater.engineering.culvert`` or ``routing`` is called to make the expected values.
"""
from __future__ import annotations

import math

import pytest
from hds5_oracle import CircularCulvertOracle, storage_indication

from stormwater.engineering.culvert import Culvert, inlet_types
from stormwater.engineering.hydrograph import Hydrograph
from stormwater.engineering.routing import (Orifice, RectangularWeir, StageStorage, storage_indication_route,
                                            villemonte_factor)

G = 32.174
# HDS-5 Table A.1, circular concrete, square edge with headwall (form 1)
K, M, C, Y, KS = 0.0098, 2.0, 0.0398, 0.67, -0.5
D, L, INV, OUT_INV, N, KE = 2.0, 60.0, 100.0, 99.4, 0.012, 0.5
ORACLE = CircularCulvertOracle(d=D, length=L, inv=INV, out_inv=OUT_INV, n=N, ke=KE, k=K, m=M, c=C, y=Y, ks=KS)
_hw_inlet, _hw, _q_at = ORACLE.hw_inlet, ORACLE.hw, ORACLE.q_at


def _culvert(tw=None):
    return Culvert(INV, OUT_INV, L, D, inlet="concrete_square_edge_headwall", manning_n=N, entrance_loss=KE,
                   tailwater_ft=tw)


def test_the_shipped_table_carries_hds5_table_a1_constants():
    t = inlet_types()
    r = t["concrete_square_edge_headwall"]
    assert (r.form, r.k, r.m, r.c, r.y, r.ks) == (1, 0.0098, 2.0, 0.0398, 0.67, -0.5)
    assert (t["cmp_mitered"].k, t["cmp_mitered"].m, t["cmp_mitered"].ks) == (0.0210, 1.33, 0.7)
    assert (t["cmp_projecting"].c, t["cmp_projecting"].y) == (0.0553, 0.54)


@pytest.mark.parametrize("q", [0.5, 3.0, 8.0, 14.0, 20.0, 23.0, 26.0, 35.0])
def test_inlet_control_headwater_matches_hds5_equations_point_by_point(q):
    # unsubmerged (Q/AD^0.5 ≤ 3.5 → Q ≤ 15.5 cfs), transition, submerged (≥ 4.0 → Q ≥ 17.8 cfs)
    assert _culvert().inlet_control_headwater_ft(q) == pytest.approx(_hw_inlet(q), rel=1e-6)


@pytest.mark.parametrize("stage", [100.3, 100.8, 101.5, 102.2, 103.0, 104.5, 106.0])
def test_the_culvert_rating_matches_an_independent_hds5_calculation(stage):
    assert _culvert().discharge_cfs(stage) == pytest.approx(_q_at(stage), rel=1e-4, abs=1e-6)


@pytest.mark.parametrize("stage", [103.2, 104.0, 105.0])
def test_a_high_tailwater_puts_the_culvert_under_outlet_control(stage):
    tw = 102.8   # 1.4 ft above the outlet crown
    cv = _culvert(tw)
    q = cv.discharge_cfs(stage)
    assert q == pytest.approx(_q_at(stage, tw), rel=1e-4)
    assert cv.control_at(stage) == "outlet" == _hw(q, tw)[1]
    assert q < _culvert().discharge_cfs(stage) * 0.9      # the tailwater takes flow away
    assert _culvert().control_at(stage) == "inlet"        # free outfall: inlet control governs
    assert cv.discharge_cfs(tw) == 0.0 and cv.discharge_cfs(tw - 0.5) == 0.0


def test_no_flow_at_or_below_the_inlet_invert():
    assert _culvert().discharge_cfs(INV) == 0.0 and _culvert().discharge_cfs(INV - 1) == 0.0


def test_a_box_culvert_of_form_2_follows_eq_a2():
    cv = Culvert(10.0, 9.9, 40.0, 3.0, inlet="box_headwall_chamfer_3_4in", span_ft=4.0)
    q = 20.0
    x = q / (12.0 * 3.0 ** 0.5)
    assert cv.inlet_control_headwater_ft(q) == pytest.approx(3.0 * 0.515 * x ** 0.667, rel=1e-9)


def test_bad_culverts_are_refused():
    with pytest.raises(ValueError, match="inlet"):
        Culvert(1, 0, 10, 1, inlet="nonesuch")
    with pytest.raises(ValueError, match="span_ft"):
        Culvert(1, 0, 10, 1, inlet="box_wingwall_30_75")


# --- weirs and orifices with tailwater ----------------------------------------------------------

def test_sharp_crested_weir_with_end_contractions_is_the_francis_formula():
    w = RectangularWeir(10.0, 4.0, 3.33, end_contractions=2)
    assert w.discharge_cfs(11.0) == pytest.approx(3.33 * (4.0 - 0.2 * 1.0) * 1.0, rel=1e-12)


def test_a_submerged_weir_follows_villemonte():
    w = RectangularWeir(10.0, 5.0, 3.09, tailwater_ft=10.5)
    free = 3.09 * 5.0 * 1.0 ** 1.5
    assert w.discharge_cfs(11.0) == pytest.approx(free * (1 - 0.5 ** 1.5) ** 0.385, rel=1e-12)
    assert villemonte_factor(1.0, 1.2) == 0.0 and villemonte_factor(1.0, -1.0) == 1.0


def test_a_submerged_orifice_works_on_the_head_difference():
    o = Orifice(10.0, 1.0, 0.6, tailwater_ft=11.2)
    assert o.discharge_cfs(12.0) == pytest.approx(0.6 * math.pi / 4 * math.sqrt(2 * G * 0.8), rel=1e-12)
    assert o.discharge_cfs(11.1) == 0.0
    free = Orifice(10.0, 1.0, 0.6)
    assert free.discharge_cfs(12.0) == pytest.approx(0.6 * math.pi / 4 * math.sqrt(2 * G * 1.5), rel=1e-12)


# --- a pond with a culvert outlet and a fixed tailwater, routed ---------------------------------

def test_a_pond_with_a_culvert_and_a_fixed_tailwater_routes_within_2_percent_of_an_independent_routing():
    dt = 0.1
    # a triangular inflow: 0 → 45 cfs at 1.5 h → 0 at 4.5 h
    inflow = [45.0 * min(t / 1.5, max(0.0, (4.5 - t) / 3.0)) for t in (k * dt for k in range(int(4.5 / dt) + 1))]
    stages = (100.0, 102.0, 104.0, 106.0, 108.0, 110.0)
    storages = (0.0, 13000.0, 30000.0, 51000.0, 76000.0, 105000.0)
    tw = 103.5   # fixed tailwater, 2.1 ft above the outlet crown
    res = storage_indication_route(Hydrograph(dt, tuple(inflow)), StageStorage(stages, storages),
                                   {"culvert": _culvert(tw)}, tail_hr=12.0, subdivisions=100)
    peak_o, peak_h = storage_indication(inflow, dt, stages, storages, ORACLE.forward_rating(tw, 60.0), 100.0)
    assert res.peak_outflow_cfs == pytest.approx(peak_o, rel=0.02)
    assert res.peak_stage_ft - 100.0 == pytest.approx(peak_h - 100.0, rel=0.02)
    assert _culvert(tw).control_at(res.peak_stage_ft) == "outlet"
    # and the tailwater matters: the same pond with a free outfall peaks lower
    free = storage_indication_route(Hydrograph(dt, tuple(inflow)), StageStorage(stages, storages),
                                    {"culvert": _culvert()}, tail_hr=12.0, subdivisions=100)
    assert free.peak_stage_ft < res.peak_stage_ft - 0.1
