"""Budget entry of the Stormwater Management Account: by role, through services with audit rows."""
import re
from decimal import Decimal as D

import pytest

from stormwater.audit.models import AuditEvent
from stormwater.fund.models import BudgetLine, FiscalYearBudget, OtherRevenue
from stormwater.fund.services import ERR_AMOUNT, FundError, budget_line_create


def test_collector_adds_edits_and_removes_a_budget_line_on_the_web_with_audit_rows(client_for, personas):
    c = client_for(personas["collector"])
    r = c.post("/fund/2027/lines/new/", {"category": "direct", "allowed_use": "D",
                                         "description": "Street sweeping", "amount": "12500.00"})
    assert r.status_code == 302 and r.url == "/fund/2027/"
    line = BudgetLine.objects.get()
    assert (line.budget.fiscal_year, line.category, line.allowed_use, line.amount) == (2027, "direct", "D", D("12500"))
    ev = AuditEvent.objects.get(action="fund.budget_line_create")
    assert ev.actor == personas["collector"] and ev.data["amount"] == "12500.00" and ev.object_id == str(line.pk)
    assert AuditEvent.objects.filter(action="fund.budget_create", object_id=str(line.budget.pk)).exists()

    page = c.get("/fund/2027/").content.decode()
    assert "Street sweeping" in page and "12,500.00" in page

    r = c.post(f"/fund/lines/{line.pk}/", {"category": "direct", "allowed_use": "D",
                                           "description": "Street sweeping (2 passes)", "amount": "13000"})
    assert r.status_code == 302
    line.refresh_from_db()
    assert line.amount == D("13000.00") and line.description == "Street sweeping (2 passes)"
    ev = AuditEvent.objects.get(action="fund.budget_line_update")
    assert ev.data["before"]["amount"] == "12500.00" and ev.data["after"]["amount"] == "13000.00"

    assert c.get(f"/fund/lines/{line.pk}/delete/").status_code == 405  # a GET never deletes
    r = c.post(f"/fund/lines/{line.pk}/delete/")
    assert r.status_code == 302 and not BudgetLine.objects.exists()
    ev = AuditEvent.objects.get(action="fund.budget_line_delete")
    assert ev.data["before"]["description"] == "Street sweeping (2 passes)" and ev.actor == personas["collector"]


def test_a_reserve_line_must_fall_under_use_b_and_debt_service_under_c(client_for, personas):
    c = client_for(personas["director"])
    r = c.post("/fund/2027/lines/new/", {"category": "reserve", "allowed_use": "D", "description": "Reserve",
                                         "amount": "100"})
    assert r.status_code == 400 and "falls under ¶B" in r.content.decode()
    with pytest.raises(FundError, match="¶C"):
        budget_line_create(fiscal_year=2027, category="debt_service", allowed_use="E", description="Bond",
                           amount=D("1"), acting_user=personas["director"])
    assert not BudgetLine.objects.exists() and not AuditEvent.objects.filter(action__startswith="fund.").exists()


def test_amounts_must_be_positive(personas, db):
    with pytest.raises(FundError, match=re.escape(ERR_AMOUNT)):
        budget_line_create(fiscal_year=2027, category="direct", allowed_use="D", description="x", amount=D("0"),
                           acting_user=personas["director"])


def test_other_revenue_and_reserve_use_on_the_web(client_for, personas):
    c = client_for(personas["collector"])
    r = c.post("/fund/2027/other-revenue/new/", {"kind": "grant", "source": "MassDEP 604(b)", "amount": "25000",
                                                 "dated": "2026-11-01", "received": "on"})
    assert r.status_code == 302
    rev = OtherRevenue.objects.get()
    assert (rev.kind, rev.amount, rev.received) == ("grant", D("25000.00"), True)
    assert AuditEvent.objects.filter(action="fund.other_revenue_create", actor=personas["collector"]).exists()
    r = c.post(f"/fund/other-revenue/{rev.pk}/", {"kind": "grant", "source": "MassDEP 604(b)", "amount": "20000",
                                                   "dated": "2026-11-01"})
    rev.refresh_from_db()
    assert r.status_code == 302 and rev.amount == D("20000.00") and rev.received is False
    r = c.post("/fund/2027/budget/", {"reserve_use": "5000", "approved_on": "2026-05-12", "notes": "ATM vote"})
    b = FiscalYearBudget.objects.get(fiscal_year=2027)
    assert r.status_code == 302 and b.reserve_use == D("5000.00") and str(b.approved_on) == "2026-05-12"
    assert AuditEvent.objects.get(action="fund.budget_update").data["after"]["reserve_use"] == "5000.00"
    r = c.post(f"/fund/other-revenue/{rev.pk}/delete/")
    assert r.status_code == 302 and not OtherRevenue.objects.exists()
    assert AuditEvent.objects.filter(action="fund.other_revenue_delete").count() == 1


def test_overview_shows_what_the_fee_must_raise(client_for, personas, budget2027):
    page = client_for(personas["clerk"]).get("/fund/2027/").content.decode()
    assert "To raise from fees" in page and "$8,360.00" in page and "$10,000.00" in page
    assert "Add a budget line" not in page  # the clerk reads the account, Finance enters it
    assert "<svg" in page and "cdn" not in page.lower()


@pytest.mark.parametrize("role,url,status", [
    ("owner", "/fund/2027/", 403), ("consultant", "/fund/2027/", 403), ("inspector", "/fund/2027/", 403),
    ("assessor", "/fund/2027/", 403), ("staff", "/fund/2027/", 200), ("clerk", "/fund/2027/", 200),
    ("collector", "/fund/2027/", 200), ("director", "/fund/2027/", 200),
    ("staff", "/fund/2027/lines/new/", 403), ("clerk", "/fund/2027/lines/new/", 403),
    ("collector", "/fund/2027/lines/new/", 200), ("director", "/fund/2027/lines/new/", 200),
    ("clerk", "/fund/2027/other-revenue/new/", 403), ("collector", "/fund/2027/budget/", 200),
    ("owner", "/fund/rate-model/", 403), ("staff", "/fund/rate-model/", 200),
    ("owner", "/fund/reports/receipts/", 403), ("assessor", "/fund/reports/revenue-vs-budget/", 403),
    ("clerk", "/fund/reports/receipts/", 200), ("collector", "/fund/reports/revenue-vs-budget/", 200),
    ("owner", "/api/fund/2027/", 403), ("staff", "/api/fund/2027/", 200),
])
def test_role_matrix(client_for, personas, role, url, status):
    assert client_for(personas[role]).get(url).status_code == status


def test_anonymous_users_are_sent_to_login_and_the_api_says_401(client, db):
    r = client.get("/fund/2027/")
    assert r.status_code == 302 and r.url.startswith("/login/")
    assert client.get("/api/fund/2027/").status_code == 401
    assert client.post("/api/fund/rate-model", {}, content_type="application/json").status_code == 401


def test_fund_home_redirects_to_the_current_fiscal_year(client_for, personas):
    r = client_for(personas["director"]).get("/fund/")
    assert r.status_code == 302 and r.url.startswith("/fund/20")


def test_nav_shows_the_fund_to_those_who_may_see_it(client_for, personas):
    assert 'href="/fund/"' in client_for(personas["clerk"]).get("/").content.decode()
    assert 'href="/fund/"' not in client_for(personas["assessor"]).get("/").content.decode()


def test_budget_api(client_for, personas, budget2027):
    c = client_for(personas["collector"])
    r = c.post("/api/fund/2027/lines/", {"category": "direct", "allowed_use": "F", "description": "IDDE sampling",
                                         "amount": "750.5"}, content_type="application/json")
    assert r.status_code == 201 and r.json()["amount"] == "750.50" and r.json()["allowed_use"] == "F"
    assert AuditEvent.objects.filter(action="fund.budget_line_create", actor=personas["collector"]).count() == 5
    r = c.post("/api/fund/2027/lines/", {"category": "direct", "allowed_use": "F", "amount": "1", "descr": "x"},
               content_type="application/json")
    assert r.status_code == 400 and r.json()["error"] == "unknown field: descr"
    r = c.post("/api/fund/2027/other-revenue/", {"kind": "appropriation", "source": "Town Meeting Art. 12",
                                                 "amount": "3000", "dated": "2026-05-10", "received": True},
               content_type="application/json")
    assert r.status_code == 201
    b = c.get("/api/fund/2027/").json()
    assert b["total"] == "10750.50" and b["other_revenue"] == "4640.00" and b["fee_need"] == "6110.50"
    assert b["by_use"]["F"] == "750.50" and len(b["lines"]) == 5
    r = client_for(personas["clerk"]).post("/api/fund/2027/lines/", {}, content_type="application/json")
    assert r.status_code == 403


def test_a_fiscal_year_out_of_range_is_not_found(client_for, personas):
    c = client_for(personas["director"])
    assert c.get("/fund/0/").status_code == 404 and c.get("/fund/3000/lines/new/").status_code == 404
    assert c.get("/api/fund/0/").status_code == 404
