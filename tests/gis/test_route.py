"""gis.route (pure): the driving order of a day's sites — nearest neighbour + 2-opt, an open path from the start."""
import itertools
import random

import pytest

from stormwater.gis.route import haversine_m, path_length_m, route_order


def test_haversine_one_degree_of_latitude_is_about_111_km():
    assert haversine_m((42.0, -72.5), (43.0, -72.5)) == pytest.approx(111_195, rel=1e-3)
    assert haversine_m((42.05, -72.58), (42.05, -72.58)) == 0


def test_sites_on_a_line_are_visited_in_order_from_the_yard():
    yard = (42.00, -72.50)
    sites = [(42.03, -72.50), (42.01, -72.50), (42.04, -72.50), (42.02, -72.50)]
    assert route_order(sites, yard) == [1, 3, 0, 2]
    # from the far end, the other way round
    assert route_order(sites, (42.05, -72.50)) == [2, 0, 3, 1]


def test_without_a_start_the_first_site_stays_first():
    sites = [(42.02, -72.50), (42.00, -72.50), (42.04, -72.50), (42.01, -72.50)]
    order = route_order(sites)
    assert order[0] == 0 and sorted(order) == [0, 1, 2, 3]


def test_two_opt_matches_the_best_order_on_small_random_towns():
    """On 7 sites the heuristic's path is within 10 % of the exhaustive optimum (and usually equal)."""
    rng = random.Random(18)
    for _ in range(8):
        yard = (42.0 + rng.random() * 0.05, -72.6 + rng.random() * 0.05)
        sites = [(42.0 + rng.random() * 0.05, -72.6 + rng.random() * 0.05) for _ in range(7)]
        got = path_length_m(yard, sites, route_order(sites, yard))
        best = min(path_length_m(yard, sites, list(p)) for p in itertools.permutations(range(7)))
        assert got <= best * 1.10 + 1e-6


def test_edges():
    assert route_order([]) == [] and route_order([(42.0, -72.5)], (42.1, -72.5)) == [0]
    with pytest.raises(ValueError):
        route_order([(95.0, 0.0), (1.0, 1.0)])
