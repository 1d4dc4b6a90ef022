"""Issue 31: storage-indication routing against a tailwater that changes through the storm
(engineering/tailwater.py). Held constant, it must give what the fixed-tailwater routing gives (culvert under
outlet control, a pond that overtops into its spillway), and its volumes must balance route by route."""
from __future__ import annotations

import math

import pytest

from stormwater.engineering.culvert import Culvert
from stormwater.engineering.hydrograph import Hydrograph
from stormwater.engineering.routing import Orifice, RectangularWeir, StageStorage, storage_indication_route
from stormwater.engineering.tailwater import storage_indication_route_tailwater

DT = 0.02
SS = StageStorage((0.0, 1.0, 2.0, 3.0, 5.0), (0.0, 1500.0, 3500.0, 6000.0, 12000.0))


def _inflow(peak):
    return Hydrograph(DT, tuple(peak * math.exp(-((k * DT - 2) / 0.4) ** 2) for k in range(300)))


@pytest.mark.parametrize("tw", [0.9, 1.5])
def test_a_constant_tailwater_routes_as_the_fixed_one(tw):
    fixed = storage_indication_route(_inflow(8.0), SS, {"c": Culvert(0.0, -0.2, 40, 1.0, tailwater_ft=tw)},
                                     initial_stage_ft=0.0, tail_hr=6)
    varying = storage_indication_route_tailwater(_inflow(8.0), SS, {"c": Culvert(0.0, -0.2, 40, 1.0)}, [tw],
                                                 initial_stage_ft=0.0, tail_hr=6)
    assert varying.peak_outflow_cfs == pytest.approx(fixed.peak_outflow_cfs, rel=1e-3)
    assert varying.peak_stage_ft == pytest.approx(fixed.peak_stage_ft, abs=1e-3)


def test_an_overtopping_pond_routes_into_its_spillway_as_the_fixed_routing_does():
    ss = StageStorage((0.0, 1.0, 2.0, 3.0), (0.0, 1500.0, 3500.0, 6000.0))
    devs = {"orifice": Orifice(0.0, 0.5), "spillway": RectangularWeir(2.8, 3.0)}
    fixed = storage_indication_route(_inflow(30.0), ss, devs, initial_stage_ft=0.0, above_top="extend", tail_hr=6)
    varying = storage_indication_route_tailwater(_inflow(30.0), ss, devs, [-9.0], initial_stage_ft=0.0, extend_ft=24.0,
                                                 tail_hr=6)
    assert varying.peak_stage_ft == pytest.approx(fixed.peak_stage_ft, abs=2e-3) and varying.peak_stage_ft > 3.0
    assert varying.first_above_top_hr == fixed.first_above_top_hr


def test_a_rising_tailwater_holds_the_water_back_and_the_volumes_balance():
    inflow = _inflow(8.0)
    rising = [0.5 + 1.5 * min(k * DT / 3.0, 1.0) for k in range(400)]
    culvert = {"c": Culvert(0.0, -0.2, 40, 1.0)}
    low = storage_indication_route_tailwater(inflow, SS, culvert, [0.5], initial_stage_ft=0.0, tail_hr=6)
    res = storage_indication_route_tailwater(inflow, SS, culvert, rising, initial_stage_ft=0.0, tail_hr=6)
    assert res.peak_stage_ft > low.peak_stage_ft + 0.1
    volume_in = (sum(inflow.flows_cfs) - (inflow.flows_cfs[0] + inflow.flows_cfs[-1]) / 2) * DT * 3600
    routed = sum(res.outlet_volumes_cuft.values()) + res.end_storage_cuft - res.start_storage_cuft
    assert routed == pytest.approx(volume_in, rel=1e-9)
