"""Every clock of issue 5 at its edges: the day before, the day of, the day after, and a holiday or
weekend (rules.deadlines, pure; MGL c.4 §9 roll-forward; roll-back for the hearing notice)."""
import io
import json
from datetime import date
from types import SimpleNamespace

import pytest

from stormwater.rules.deadlines import CLOCKS, case_clock_terms, deadline, notice_is_timely, within
from stormwater.rules.clocks import clock_state

D = date

# clock, start, due, unrolled (a plain case and a rolled case per clock)
CASES = [
    ("bill_due", D(2026, 9, 15), D(2026, 10, 15), D(2026, 10, 15)),
    ("bill_due", D(2026, 9, 10), D(2026, 10, 13), D(2026, 10, 10)),            # Sat, Sun, Columbus Day
    ("abatement_filing", D(2026, 9, 15), D(2026, 10, 15), D(2026, 10, 15)),
    ("abatement_filing", D(2026, 9, 10), D(2026, 10, 13), D(2026, 10, 10)),
    ("abatement_decision", D(2026, 10, 1), D(2026, 11, 30), D(2026, 11, 30)),
    ("abatement_decision", D(2026, 10, 13), D(2026, 12, 14), D(2026, 12, 12)),  # Saturday
    ("credit_decision", D(2027, 3, 3), D(2027, 4, 2), D(2027, 4, 2)),
    ("credit_decision", D(2027, 3, 20), D(2027, 4, 20), D(2027, 4, 19)),       # Patriots' Day
    ("appeal_filing", D(2026, 11, 2), D(2026, 12, 2), D(2026, 12, 2)),
    ("appeal_filing", D(2026, 10, 27), D(2026, 11, 27), D(2026, 11, 26)),      # Thanksgiving
    ("appeal_hearing_latest", D(2026, 12, 2), D(2027, 3, 2), D(2027, 3, 2)),
    ("appeal_hearing_latest", D(2026, 10, 20), D(2027, 1, 19), D(2027, 1, 18)),  # Martin Luther King Jr. Day
    ("appeal_decision", D(2027, 1, 12), D(2027, 2, 11), D(2027, 2, 11)),
    ("appeal_decision", D(2027, 1, 16), D(2027, 2, 16), D(2027, 2, 15)),       # Washington's Birthday
    ("demand_to_commitment", D(2026, 11, 2), D(2026, 11, 17), D(2026, 11, 17)),
    # the 14th day (the owner's last day to pay) is Sat 11-21: rolled to Mon 11-23, commitment from Tue 11-24
    # (issue 17: MGL c.4 §9 rolls the owner's last day; the Collector commits the day after it)
    ("demand_to_commitment", D(2026, 11, 7), D(2026, 11, 24), D(2026, 11, 22)),
    ("atb_appeal", D(2027, 1, 20), D(2027, 4, 20), D(2027, 4, 20)),
    ("atb_appeal", D(2027, 1, 19), D(2027, 4, 20), D(2027, 4, 19)),            # Patriots' Day
    ("atb_appeal", D(2026, 11, 30), D(2027, 3, 1), D(2027, 2, 28)),            # month end, then Sunday
]


@pytest.mark.parametrize("clock,start,due,unrolled", CASES)
def test_each_clock_falls_due_on_its_day_rolled_past_weekends_and_holidays(clock, start, due, unrolled):
    d = deadline(clock, start)
    assert (d.due, d.unrolled) == (due, unrolled)
    assert CLOCKS[clock].citation in d.rule and due.isoformat() in d.rule


@pytest.mark.parametrize("clock,start,due,unrolled", [c for c in CASES if c[0] != "demand_to_commitment"])
def test_the_day_before_and_the_day_of_are_in_time_and_the_day_after_is_late(clock, start, due, unrolled):
    from datetime import timedelta

    assert within(clock, start=start, on=due - timedelta(days=1))
    assert within(clock, start=start, on=due)
    assert not within(clock, start=start, on=due + timedelta(days=1))
    if due != unrolled:  # the rolled-over days in between are in time too
        assert within(clock, start=start, on=unrolled)


@pytest.mark.parametrize("clock,start,due,unrolled", [c for c in CASES if c[0] != "demand_to_commitment"])
def test_a_case_clock_started_on_the_same_day_falls_due_the_same_day(clock, start, due, unrolled):
    length, roll = case_clock_terms(clock, start=start)
    assert clock_state(start=start, length=length, roll=roll).due == due


@pytest.mark.parametrize("hearing,last_day", [
    (D(2027, 1, 21), D(2027, 1, 11)),   # Thu hearing → Mon notice: no roll
    (D(2027, 1, 20), D(2027, 1, 8)),    # 10 days before is a Sunday → Friday
    (D(2027, 1, 12), D(2026, 12, 31)),  # Sat Jan 2, Fri Jan 1 (New Year's Day) → Thu Dec 31
    (D(2027, 2, 25), D(2027, 2, 12)),   # Mon Feb 15, Washington's Birthday → Fri Feb 12
])
def test_the_hearing_notice_date_rolls_back_to_the_previous_business_day(hearing, last_day):
    from datetime import timedelta

    d = deadline("hearing_notice_latest", hearing)
    assert d.due == last_day and d.unrolled == hearing - timedelta(days=10)
    assert notice_is_timely(sent_on=last_day - timedelta(days=1), hearing_date=hearing)
    assert notice_is_timely(sent_on=last_day, hearing_date=hearing)
    assert not notice_is_timely(sent_on=last_day + timedelta(days=1), hearing_date=hearing)
    if d.due != d.unrolled:
        assert "rolled back to the previous business day" in d.rule


def test_the_notice_clock_of_a_case_runs_from_the_day_the_hearing_is_set_to_the_rolled_back_day():
    length, roll = case_clock_terms("hearing_notice_latest", start=D(2026, 12, 7), hearing_date=D(2027, 1, 12))
    assert not roll and clock_state(start=D(2026, 12, 7), length=length, roll=roll).due == D(2026, 12, 31)
    with pytest.raises(ValueError, match="had to be sent by 2026-12-31"):
        case_clock_terms("hearing_notice_latest", start=D(2027, 1, 4), hearing_date=D(2027, 1, 12))


@pytest.mark.parametrize("mailed", [D(2026, 11, 2) + __import__("datetime").timedelta(days=i) for i in range(40)])
def test_demand_to_commitment_agrees_with_the_collections_rule(mailed):
    from stormwater.receivables.services import commitment_due_on

    assert deadline("demand_to_commitment", mailed).due == commitment_due_on(SimpleNamespace(served_on=mailed))


def test_an_unknown_clock_is_refused_naming_the_clocks():
    with pytest.raises(ValueError, match="clock: unknown clock 'nope'"):
        deadline("nope", D(2026, 1, 1))


# --- the calculator: CLI and API -------------------------------------------------------------------

def _cli(payload, monkeypatch, capsys):
    from stormwater import cli

    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(payload)))
    code = cli.main(["calc", "deadline"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("clock", list(CLOCKS))
def test_calc_deadline_knows_every_clock_of_the_issue(clock, monkeypatch, capsys):
    payload = {"clock": clock, "hearing_date": "2027-01-12"} if CLOCKS[clock].before else \
        {"clock": clock, "start": "2026-09-10"}
    code, out = _cli(payload, monkeypatch, capsys)
    assert code == 0 and out["due"] == deadline(clock, date.fromisoformat(list(payload.values())[1])).due.isoformat()
    assert out["rule"]


def test_calc_deadline_cli_prints_due_and_rule(monkeypatch, capsys):
    code, out = _cli({"clock": "abatement_filing", "start": "2026-09-10"}, monkeypatch, capsys)
    assert code == 0 and out["due"] == "2026-10-13" and out["rolled"] is True
    assert "Columbus" not in out["rule"] and "Saturday" in out["rule"] and "billing ¶E" in out["rule"]


@pytest.mark.parametrize("payload,error", [
    ({"start": "2026-09-10"}, "clock: required"),
    ({"clock": "tomorrow", "start": "2026-09-10"}, "clock: 'tomorrow' is not one of"),
    ({"clock": "bill_due"}, "start: required"),
    ({"clock": "bill_due", "start": "10/9/2026"}, "start: '10/9/2026' is not a date"),
    ({"clock": "hearing_notice_latest", "start": "2026-09-10"}, "hearing_date: required"),
    ({"clock": "bill_due", "start": "2026-09-10", "extra": 1}, "extra: unknown field"),
    ([1, 2], "input: expected one JSON object"),
])
def test_calc_deadline_refuses_bad_input_with_exit_2_naming_the_field(payload, error, monkeypatch, capsys):
    code, out = _cli(payload, monkeypatch, capsys)
    assert code == 2 and out["error"].startswith(error)


def test_api_calc_deadline_is_public_and_answers_400_on_bad_input(client, db):
    r = client.post("/api/calc/deadline", {"clock": "hearing_notice_latest", "hearing_date": "2027-02-25"},
                    content_type="application/json")
    assert r.status_code == 200 and r.json()["due"] == "2027-02-12" and r.json()["counts"] == "back"
    r = client.post("/api/calc/deadline", {"clock": "atb_appeal"}, content_type="application/json")
    assert r.status_code == 400 and r.json()["error"].startswith("start: required")
