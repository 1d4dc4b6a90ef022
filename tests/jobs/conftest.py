"""Fixtures of the jobs tests: kinds made for the tests (registered for the test session only), running the
queue in this process the way ``stormwater worker --batch`` does, and a billed town."""
from __future__ import annotations

from datetime import date

import pytest

from stormwater.accounts.roles import Perm
from stormwater.jobs import registry
from stormwater.jobs.registry import JobParamError, int_param, only_params
from stormwater.jobs.services import job_file


def _count_clean(params):
    only_params(params, {"n", "fail_at"})
    out = {"n": int_param(params, "n")}
    if params.get("fail_at") not in (None, ""):
        out["fail_at"] = int_param(params, "fail_at")
    return out


def count_body(job):
    """Counts to n: progress each step, a log line each step, a file at the end; fails at fail_at if given."""
    n = job.params["n"]
    for i in range(1, n + 1):
        if job.params.get("fail_at") == i:
            raise ValueError(f"step {i}: refused, as asked")
        job.log(f"step {i}")
        job.progress(i, n)
    with job_file(job, "count.csv") as path:
        path.write_text("i\n" + "".join(f"{i}\n" for i in range(1, n + 1)))
    return {"counted": n}


@pytest.fixture(autouse=True, scope="session")
def test_kinds():
    registry.KINDS["test_count"] = registry.JobKind(
        name="test_count", perm=Perm.BILLING_RUN, body=count_body, clean=_count_clean, label="Count",
        title=lambda p: f"Count to {p['n']}", subject=lambda p: "")
    yield
    registry.KINDS.pop("test_count", None)


@pytest.fixture
def billed(town, resolution):
    from stormwater.utility.services import bill_run_issue, fiscal_year

    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    return town


__all__ = ["JobParamError"]
