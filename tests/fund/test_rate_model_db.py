"""The rate model on the database: the parcel base through the one fee path, the page, the API, and
adoption as a rate resolution (Ch. 295 Art. IV budget/rates ¶A–¶E)."""
from datetime import date
from decimal import Decimal as D

import pytest

from stormwater.audit.models import AuditEvent
from stormwater.fund.selectors import RateModelInputs, model_terms, parcel_base, rate_model_run
from stormwater.fund.services import ERR_RATE_BELOW, Adoption, FundError, rate_model_adopt
from stormwater.rules.classes import PropertyClass as PC
from stormwater.utility.models import RateResolution

# The town fixture through utility.selectors.assess (ERU 3,400 ft², Table 1):
#   small residential: 01-01-1, 01-01-2                                   → 2 × ρ
#   nonresidential: shops 200,000 ft² → 59 ERUs (10 + 36 + 7.2 = 53.2); garage 52,000 → 15 (10 + 4.5 = 14.5)
#   large residential: apartments 38,500 → 11 (10.9); condo 10,200 → 3 (3)
#   exempt: the road; not billable: no owner, unknown units, no area.    Σ weighted = 83.6
# With the FY2027 budget (need $8,360): r* = 8,360 / 83.6 = $100.00 exactly, and at $100.00 every block
# amount is a whole number of cents: 200 + 5,320 + 1,450 + 1,090 + 300 = 8,360.00.
INPUTS = RateModelInputs(fiscal_year=2027, base_as_of=date(2026, 7, 1))


def test_parcel_base_uses_the_fee_path_and_leaves_out_exempt_and_unbillable_parcels(town, resolution):
    terms, _, _ = model_terms(2027)
    base = parcel_base(as_of=date(2026, 7, 1), terms=terms)
    assert base.count(PC.SMALL_RESIDENTIAL) == 2
    assert sorted((g.property_class.value, g.erus) for g in base.groups if g.property_class is not PC.SMALL_RESIDENTIAL) \
        == [("large_residential", 3), ("large_residential", 11), ("nonresidential", 15), ("nonresidential", 59)]
    assert (base.exempt, base.no_fee, base.not_billable) == (1, 0, 3)


def test_the_model_balances_the_fy2027_budget_at_100_per_eru(town, resolution, budget2027):
    run = rate_model_run(inputs=INPUTS)
    sol = run.solution
    assert sol.need == D("8360.00") and sol.weighted_base == D("83.6")
    assert sol.rate_per_eru == D("100.00") and sol.flat_rate == D("100.00")
    assert sol.revenue.expected == D("8360.00") and sol.expected_one_cent_less < sol.need
    by = {c.property_class: c.gross for c in sol.revenue.by_class}
    assert by == {PC.SMALL_RESIDENTIAL: D("200.00"), PC.LARGE_RESIDENTIAL: D("1390.00"),
                  PC.NONRESIDENTIAL: D("6770.00")}
    # The sample bills compare with the resolution in force ($53.16).
    assert [(s.erus, s.proposed.annual_fee, s.current.annual_fee) for s in run.samples][:3] == [
        (1, D("100.00"), D("53.16")), (5, D("500.00"), D("265.80")), (20, D("1900.00"), D("1010.04"))]


def test_the_model_without_a_budget_or_resolution_uses_the_demo_terms_and_needs_no_fee(town):
    run = rate_model_run(inputs=INPUTS)
    assert run.current is None and "demo" in run.terms_source
    assert run.solution.need == 0 and run.solution.rate_per_eru == 0


def test_rate_model_page_shows_the_rate_tables_chart_and_sample_bills(client_for, personas, town, resolution,
                                                                      budget2027):
    q = ("fiscal_year=2027&collection_rate_percent=100&credit_allowance_percent=0&flat_ratio=1"
         "&base_as_of=2026-07-01&sample_erus=5,20,60,200")
    page = client_for(personas["staff"]).get(f"/fund/rate-model/?{q}")
    html = page.content.decode()
    assert page.status_code == 200
    assert "$100.00 per ERU a year" in html and "$8,360.00" in html and "Revenue by block" in html
    assert "Nonresidential, 200 ERUs" in html and "<svg" in html
    assert "3 parcels a bill run could not bill are not in the base" in html
    assert "Adopt as a rate resolution" not in html  # staff may model, not adopt
    assert "Adopt as a rate resolution" in client_for(personas["clerk"]).get(f"/fund/rate-model/?{q}").content.decode()
    bad = client_for(personas["staff"]).get("/fund/rate-model/?fiscal_year=2027&collection_rate_percent=0"
                                            "&credit_allowance_percent=0&flat_ratio=1&base_as_of=2026-07-01"
                                            "&sample_erus=5")
    assert bad.status_code == 200 and "errorlist" in bad.content.decode()


MODEL_POST = {"fiscal_year": "2027", "collection_rate_percent": "100", "credit_allowance_percent": "0",
              "flat_ratio": "1", "base_as_of": "2026-07-01", "sample_erus": "5, 20"}
ADOPT_POST = {"label": "FY2028 stormwater rates", "adopted_on": "2027-05-20", "effective_from": "2027-07-01",
              "installments": "2", "interest_rate_percent": "12", "demand_charge": "25"}


def test_the_clerk_adopts_the_modelled_rate_as_a_resolution(client_for, personas, town, resolution, budget2027):
    r = client_for(personas["clerk"]).post("/fund/rate-model/adopt/", MODEL_POST | ADOPT_POST)
    assert r.status_code == 302 and r.url == "/rates/"
    res = RateResolution.objects.get(label="FY2028 stormwater rates")
    assert (res.rate_per_eru, res.small_residential_rate, res.eru_sqft) == (D("100.00"), D("100.00"), D("3400.00"))
    assert (res.effective_from, res.adopted_on, res.installments) == (date(2027, 7, 1), date(2027, 5, 20), 2)
    assert [(b.first_eru, b.last_eru, b.coefficient) for b in res.blocks.all()] == [
        (1, 10, D("1.000")), (11, 50, D("0.900")), (51, 100, D("0.800")), (101, 500, D("0.700"))]
    assert "solved $100.00 per ERU" in res.notes and res.created_by == personas["clerk"]
    assert AuditEvent.objects.filter(action="resolution.adopt", object_id=str(res.pk), actor=personas["clerk"]).exists()
    ev = AuditEvent.objects.get(action="fund.rate_adopt")
    assert ev.data["rate_per_eru"] == "100.00" and ev.data["solution"]["need"] == "8360.00"


def test_a_rate_below_the_balancing_rate_is_refused_and_a_higher_one_is_allowed(client_for, personas, town,
                                                                                 resolution, budget2027):
    c = client_for(personas["director"])
    r = c.post("/fund/rate-model/adopt/", MODEL_POST | ADOPT_POST | {"rate_per_eru": "99.99"})
    assert r.status_code == 400 and "below the $100.00" in r.content.decode()
    assert not RateResolution.objects.filter(label="FY2028 stormwater rates").exists()
    assert not AuditEvent.objects.filter(action="fund.rate_adopt").exists()
    with pytest.raises(FundError, match="budget/rates ¶A"):
        rate_model_adopt(model_inputs=INPUTS, adoption=Adoption(
            label="x", adopted_on=date(2027, 5, 1), effective_from=date(2027, 7, 1), installments=1,
            interest_rate_percent=D(12), demand_charge=D(25), rate_per_eru=D("50")), acting_user=personas["director"])
    assert "{solved}" in ERR_RATE_BELOW
    r = c.post("/fund/rate-model/adopt/", MODEL_POST | ADOPT_POST | {"rate_per_eru": "101.00"})
    assert r.status_code == 302
    res = RateResolution.objects.get(label="FY2028 stormwater rates")
    assert res.rate_per_eru == D("101.00") and res.small_residential_rate == D("101.00")


def test_only_the_clerk_and_director_adopt(client_for, personas, town, resolution, budget2027):
    for role in ("collector", "staff", "assessor"):
        assert client_for(personas[role]).post("/fund/rate-model/adopt/", MODEL_POST | ADOPT_POST).status_code == 403
    assert not RateResolution.objects.filter(label="FY2028 stormwater rates").exists()
    assert client_for(personas["clerk"]).get("/fund/rate-model/adopt/").status_code == 405


def test_rate_model_api_solve_and_adopt(client_for, personas, town, resolution, budget2027):
    c = client_for(personas["collector"])
    r = c.post("/api/fund/rate-model", {"fiscal_year": 2027, "base_as_of": "2026-07-01", "collection_rate_percent": "95"},
               content_type="application/json")
    body = r.json()
    assert r.status_code == 200 and body["need"] == "8360.00"
    assert D(body["expected_revenue"]) >= D("8360") > D(body["expected_one_cent_less"])
    assert body["eru_sqft"] == "3400.00" and body["sample_bills"][0]["label"].startswith("Small residential")
    assert c.post("/api/fund/rate-model", {"fiscal_year": 2027, "budjet": 1},
                  content_type="application/json").json() == {"error": "unknown field: budjet"}
    adopt = {"model": {"fiscal_year": 2027, "base_as_of": "2026-07-01"},
             "adoption": {"label": "API rates", "effective_from": "2027-07-01"}}
    assert c.post("/api/fund/rate-model/adopt", adopt, content_type="application/json").status_code == 403
    r = client_for(personas["clerk"]).post("/api/fund/rate-model/adopt", adopt, content_type="application/json")
    assert r.status_code == 201 and r.json()["rate_per_eru"] == "100.00"
    assert RateResolution.objects.get(label="API rates").effective_from == date(2027, 7, 1)


def test_the_parcel_base_is_set_based(town, resolution, django_assert_max_num_queries):
    terms, _, _ = model_terms(2027)
    # impervious areas, parcels, and the association instruments in force with their shares (Ch. 295 Art. IV ¶G:
    # unit parcels are billed through their master): never one query per parcel
    with django_assert_max_num_queries(4):
        parcel_base(as_of=date(2026, 7, 1), terms=terms)
