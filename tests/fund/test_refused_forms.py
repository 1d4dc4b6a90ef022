"""Issue 16 "Forms" (done when: "a refused staff form keeps every typed value and marks the field"): a budget line
whose use of the fee is not its category's (Ch. 295 Art. IV, uses of the fee ¶B, ¶C) comes back (400) with what was
typed and the use marked; nothing is recorded."""
from office_refill import assert_refused
from stormwater.fund.models import BudgetLine


def test_a_reserve_line_under_the_wrong_use(client_for, personas):
    c = client_for(personas["collector"])
    posted = {"category": "reserve", "allowed_use": "D", "description": "Capital reserve", "amount": "100.00"}
    assert_refused(c.post("/fund/2027/lines/new/", posted), "", "allowed_use", posted)
    assert not BudgetLine.objects.exists()
